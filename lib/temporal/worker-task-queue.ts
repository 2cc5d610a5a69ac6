import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The task queue only this worker's data folder answers: `<shared queue>-<host>-<id>`. A file
 * downloaded into the data folder can be read only by a worker that sees that folder, so the
 * activities that read it run on this queue (the Temporal pattern of worker-specific task
 * queues). The id is kept in `<data folder>/worker-id`: a worker restarted on the same folder
 * polls the same queue again and a retried stage resumes there, while a worker on another
 * machine (another folder) gets a queue of its own.
 */
const known = new Map<string, string>();

export function workerTaskQueue(sharedQueue: string, dataDir: string): string {
  const key = `${sharedQueue}\0${path.resolve(dataDir)}`;
  // Remembered for the process: the queue a worker polls must stay the one its activities
  // name even if someone cleans the data folder while it runs.
  let queue = known.get(key);
  if (!queue) {
    queue = `${sharedQueue}-${os.hostname()}-${folderId(dataDir)}`;
    known.set(key, queue);
  }
  return queue;
}

/**
 * The own queue of the worker running an activity that was taken from `activityQueue`: that
 * queue itself when it is a worker queue of this process, else the worker queue beside it.
 */
export function ownWorkerTaskQueue(activityQueue: string, dataDir: string): string {
  return [...known.values()].includes(activityQueue) ? activityQueue : workerTaskQueue(activityQueue, dataDir);
}

function folderId(dataDir: string): string {
  const file = path.join(dataDir, 'worker-id');
  mkdirSync(dataDir, { recursive: true });
  try {
    // `wx`: of two processes starting on one folder, the second reads what the first wrote.
    writeFileSync(file, `${randomBytes(6).toString('hex')}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const id = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-z]+$/i.test(id)) throw new Error(`${file} does not hold a worker id (letters and digits); remove it to get a new one`);
  return id;
}

/**
 * A worker's identity names its worker queue, so that the workers polling the shared queue
 * (Temporal's DescribeTaskQueue lists their identities) tell which queues exist: the way to
 * find the worker whose inbox holds a file.
 */
export function workerIdentity(queue: string): string {
  return `${process.pid}@${os.hostname()} ${queue}`;
}

/** The worker queue an identity of `workerIdentity` names, when it names one of `sharedQueue`. */
export function workerQueueOfIdentity(identity: string, sharedQueue: string): string | undefined {
  const queue = identity.split(' ').at(-1);
  return queue && queue.startsWith(`${sharedQueue}-`) ? queue : undefined;
}
