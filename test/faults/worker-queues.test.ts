import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { PROJECT_ROOT } from '../../lib/config.js';
import { createDatabase } from '../../lib/database-admin.js';
import { migrate } from '../../lib/migrate.js';
import { workerQueueOfIdentity } from '../../lib/temporal/worker-task-queue.js';
import { CERTIFICATION_FILE_NAME } from '../../sources/no/certification/adapter.js';
import { ingestWorkflowId } from '../../workflows/refresh.js';
import { activityExecutions, type ActivityExecution } from './support/activity-history.js';
import { startCluster, type Cluster } from './support/cluster.js';
import { holdStage } from './support/faults.js';
import { addressCsv, addressSnapshots, ADDRESS_FILE, zipOf } from './support/snapshots.js';
import { settle, type StartedRun } from './support/stack.js';
import { startTemporalDevServer, type TemporalDevServer } from './support/temporal-server.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

/**
 * Two worker machines on one task queue: two worker processes, each in a mount namespace of its
 * own with a private tmpfs over its data folder (the same path for both, as two machines have),
 * one Temporal server and one database. An artifact one worker downloads, or a file an operator
 * drops into one worker's inbox, exists only on that worker; every activity that reads it must
 * run there, on every attempt: the histories must show no stage attempt that failed.
 */

const MINUTE = 60_000;
const TASK_QUEUE = 'worker-queues';
const ADDRESS_ROWS = 5_000;
/**
 * Runs started at once: a worker that just finished a download tends to take the next task
 * itself, so one run at a time would rarely show a stage on the wrong worker; with more runs
 * than the two workers have slots, tasks queue and any worker takes any of them.
 */
const URL_RUNS = 12;
const INBOX_RUNS = 6;
const AT_ONCE = 6;
const CERTIFICATION_FIXTURE = path.join(PROJECT_ROOT, 'test/fixtures/no/certification/certifications.jsonl');
const isRoot = process.getuid?.() === 0;

let dir: string;
let cluster: Cluster;
let temporal: TemporalDevServer;
let connection: Connection;
let client: Client;
let pool: pg.Pool;
let server: Server;
let fileUrl: (run: number) => string;
let dataDir: string;
let workers: WorkerProcess[] = [];
let runCounter = 0;

async function start(workflow: 'backfill' | 'nightlyRefresh', args: Record<string, unknown>, sourceId: string): Promise<StartedRun> {
  const runId = `wq-${Date.now().toString(36)}-${runCounter++}`;
  const workflowId = `${workflow === 'backfill' ? 'backfill' : 'refresh'}-${runId}`;
  const handle = await client.workflow.start(workflow, { taskQueue: TASK_QUEUE, workflowId, args: [{ runId, ...args }] });
  return { runId, workflowId, ingestWorkflowId: ingestWorkflowId(sourceId, runId), handle, client };
}

/** `count` runs of `startRun`, `AT_ONCE` at a time; each settled, with its ingest child's activities. */
async function runMany(count: number, startRun: () => Promise<StartedRun>): Promise<{ run: StartedRun; outcome?: string; activities: ActivityExecution[] }[]> {
  const results = [];
  for (let done = 0; done < count; done += AT_ONCE) {
    const batch = await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - done) }, startRun));
    for (const run of batch) {
      const settled = await settle(run, 3 * MINUTE);
      results.push({ run, outcome: settled.summary?.outcome ?? settled.status, activities: await activityExecutions(client, run.ingestWorkflowId) });
    }
  }
  return results;
}

const queueOf = (execution: ActivityExecution) => workerQueueOfIdentity(execution.identity, TASK_QUEUE);
/** The worker process (`pid@host`) that ran an activity's last attempt. */
const processOf = (execution: ActivityExecution) => execution.identity.split(' ')[0];

/** Every stage attempt that failed, with why: none may have (a retry landing on the right worker only hides a miss). */
function failedStageAttempts(activities: ActivityExecution[]): string[] {
  return activities
    .filter((a) => a.type === 'stageArtifact' && (a.attempt !== 1 || a.lastFailure || a.outcome !== 'completed'))
    .map((a) => `stageArtifact attempt ${a.attempt} ${a.outcome}: ${a.lastFailure ?? a.failure ?? ''}`);
}

describe.skipIf(!isRoot)('two workers, each seeing only its own data folder (mount namespaces)', () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-worker-queues-'));
    [cluster, temporal] = await Promise.all([startCluster(dir), startTemporalDevServer(dir)]);
    const url = cluster.urlFor('worker_queues');
    await createDatabase(url);
    await migrate(url);
    pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => undefined);

    // Run n's file: snapshot A without its last n rows. Each run has a file of its own (as each
    // night has), so only the worker that downloaded it has it: a worker that downloaded an
    // earlier run's identical file would find it under the same name.
    const rows = addressSnapshots(ADDRESS_ROWS).a;
    const zips = new Map<number, Promise<Buffer>>();
    const zipFor = (n: number) => {
      if (!zips.has(n)) zips.set(n, zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(addressCsv(rows.slice(0, rows.length - n))), true));
      return zips.get(n)!;
    };
    server = createServer((request, response) => {
      const match = /^\/run-(\d+)\/(.+)$/.exec(request.url ?? '');
      if (!match || match[2] !== `${ADDRESS_FILE}.zip`) return void response.writeHead(404).end();
      zipFor(Number(match[1])).then((zip) => response.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length }).end(zip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fileUrl = (n) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/run-${n}/${ADDRESS_FILE}.zip`;

    // One path, as on two machines; each worker mounts its own tmpfs over it.
    dataDir = path.join(dir, 'worker-data');
    await mkdir(dataDir, { recursive: true });
    const env = {
      DATABASE_URL: url,
      TEMPORAL_ADDRESS: temporal.address,
      NORDPROP_TASK_QUEUE: TASK_QUEUE,
      NORDPROP_DATA_DIR: dataDir,
      NORDPROP_STAGE_CHUNK_ROWS: '250',
      NORDPROP_FAULT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    };
    workers = await Promise.all([1, 2].map(() => startWorkerProcess(env, { privateDataDir: true })));
    connection = await Connection.connect({ address: temporal.address });
    client = new Client({ connection });
  }, 4 * MINUTE);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop(5_000).catch(() => undefined)));
    await connection?.close().catch(() => undefined);
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await pool?.end().catch(() => undefined);
    await temporal?.stop();
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 2 * MINUTE);

  it('the workers poll queues of their own, besides the shared one', () => {
    const [a, b] = workers.map((worker) => worker.workerTaskQueue());
    expect(a).toMatch(new RegExp(`^${TASK_QUEUE}-`));
    expect(b).toMatch(new RegExp(`^${TASK_QUEUE}-`));
    expect(a).not.toBe(b);
  });

  it(`URL-fed backfills (${URL_RUNS}): every stage runs on the worker that downloaded the file, no attempt misses it`, async () => {
    let n = 0;
    const results = await runMany(URL_RUNS, () => start('backfill', { sourceId: 'no-address', input: fileUrl(n++) }, 'no-address'));
    const misses = results.flatMap(({ run, activities }) => failedStageAttempts(activities).map((miss) => `${run.runId}: ${miss}`));
    expect(misses, 'stage attempts that failed').toEqual([]);
    expect(results.map((r) => r.outcome)).toEqual(results.map(() => 'succeeded'));
    for (const { run, activities } of results) {
      const download = activities.find((a) => a.type === 'downloadArtifact' && a.outcome === 'completed')!;
      const stage = activities.find((a) => a.type === 'stageArtifact')!;
      expect(processOf(stage), `${run.runId}: the worker that staged`).toBe(processOf(download));
      expect(stage.taskQueue, `${run.runId}: the stage's queue`).toBe(queueOf(download));
    }
    const downloads = results.flatMap(({ activities }) => activities.filter((a) => a.type === 'downloadArtifact').map(queueOf));
    console.log(`downloads per worker: ${workers.map((w) => downloads.filter((q) => q === w.workerTaskQueue()).length).join(' and ')}`);
  }, 8 * MINUTE);

  it(`inbox-fed refreshes (${INBOX_RUNS}), the file in one worker's inbox only: every run finds it there and stages it there`, async () => {
    const results: Awaited<ReturnType<typeof runMany>> = [];
    // Half the runs with the file on one worker, half on the other: whichever worker Temporal
    // favours for the shared queue, some downloads land on the worker without it.
    for (const [holder, other] of [workers, [...workers].reverse()]) {
      // The operator's drop, into the holder's private folder only (seen through its mount namespace).
      const inboxOf = (worker: WorkerProcess) => path.join(`/proc/${worker.pid()}/root`, dataDir, 'inbox');
      await mkdir(inboxOf(holder), { recursive: true });
      await copyFile(CERTIFICATION_FIXTURE, path.join(inboxOf(holder), CERTIFICATION_FILE_NAME));
      await rm(path.join(inboxOf(other), CERTIFICATION_FILE_NAME), { force: true });
      const half = await runMany(INBOX_RUNS / 2, () => start('nightlyRefresh', { sources: ['no-certification'], force: true }, 'no-certification'));
      for (const { run, activities } of half) {
        expect(failedStageAttempts(activities), `${run.runId}: stage attempts that failed`).toEqual([]);
        expect(activities.filter((a) => a.type === 'stageArtifact').map(processOf), `${run.runId}: who staged`).toEqual([`${holder.pid()}@${os.hostname()}`]);
        expect(activities.filter((a) => a.type === 'stageArtifact').map((a) => a.taskQueue), `${run.runId}: the stage's queue`).toEqual([holder.workerTaskQueue()]);
      }
      const tookFirst = half.filter(({ activities }) => processOf(activities.find((a) => a.type === 'downloadArtifact')!) === `${other.pid()}@${os.hostname()}`);
      console.log(`runs whose download the worker without the file took first (and then asked the others): ${tookFirst.length} of ${half.length}`);
      results.push(...half);
    }
    expect(results.map((r) => r.outcome)).toEqual(results.map(() => 'succeeded'));
    const published = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM source_run WHERE source_id = 'no-certification' AND outcome = 'published'`);
    expect(published.rows[0].n).toBe(INBOX_RUNS);
  }, 6 * MINUTE);

  it('the worker holding the artifact is killed mid-stage and never comes back: the run downloads again on the other worker and publishes', async () => {
    // Forced, so that the stage reads the whole file (a night of these lines would parse none): there is a stage to interrupt.
    const run = await start('backfill', { sourceId: 'no-address', input: fileUrl(URL_RUNS), force: true }, 'no-address');
    const hold = await holdStage({ pool, url: cluster.urlFor('worker_queues') }, run);
    const pending = (await client.workflow.getHandle(run.ingestWorkflowId).describe()).raw.pendingActivities ?? [];
    const stagingOn = workerQueueOfIdentity(pending.find((a) => a.activityType?.name === 'stageArtifact')?.lastWorkerIdentity ?? '', TASK_QUEUE);
    const holder = workers.find((worker) => worker.workerTaskQueue() === stagingOn);
    const survivor = workers.find((worker) => worker !== holder)!;
    expect(holder, `the worker staging (queue ${stagingOn})`).toBeDefined();
    await holder!.kill();
    await hold.release();

    const settled = await settle(run, 5 * MINUTE);
    expect(settled.summary?.outcome).toBe('succeeded');
    const activities = await activityExecutions(client, run.ingestWorkflowId);
    const lost = activities.filter((a) => a.type === 'stageArtifact' && a.taskQueue === stagingOn);
    expect(lost.map((a) => [a.outcome, a.failure]), 'the stage left on the dead worker\'s queue').toEqual([['timed out', 'SCHEDULE_TO_START']]);
    const downloads = activities.filter((a) => a.type === 'downloadArtifact' && a.outcome === 'completed').map(queueOf);
    expect(downloads, 'downloaded by the dead worker, then again by the survivor').toEqual([stagingOn, survivor.workerTaskQueue()]);
    const finalStage = activities.filter((a) => a.type === 'stageArtifact').at(-1)!;
    expect([finalStage.outcome, queueOf(finalStage)]).toEqual(['completed', survivor.workerTaskQueue()]);
  }, 7 * MINUTE);
});
