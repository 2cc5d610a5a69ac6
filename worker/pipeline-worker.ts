import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import * as activities from '../activities/index.js';
import { loadConfig, type Config } from '../lib/config.js';
import { pipelineMetrics } from '../lib/metrics/worker-metrics.js';
import { trackRunningActivities } from '../lib/metrics/running-activities.js';
import { workerIdentity, workerTaskQueue } from '../lib/temporal/worker-task-queue.js';

/** The workflows entry point, next to this file's tree whether running from sources or dist/. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.js', import.meta.url));

/** How often at most the server hears an activity's beats (the activities beat every 5 s on a timer). */
const HEARTBEAT_THROTTLE = '5 seconds';

/** The activities that read a downloaded artifact or an inbox file: they run where it lies. */
const WORKER_QUEUE_ACTIVITIES = { downloadArtifact: activities.downloadArtifact, stageArtifact: activities.stageArtifact };

/**
 * The pipeline worker of one process: one Temporal worker polls the shared task queue (every
 * workflow and activity), another the worker's own queue (workerTaskQueue), on which the
 * activities that read its data folder run.
 */
export interface PipelineWorker {
  taskQueue: string;
  /** The queue only this worker (this data folder) polls. */
  workerTaskQueue: string;
  /** Polls both queues until shutdown() (or SIGINT/SIGTERM); rejects if either worker fails. */
  run(): Promise<void>;
  shutdown(): void;
}

/**
 * Workflow code is bundled once per worker start (or passed in prebuilt, as the tests do).
 */
export async function createWorker(options: { config?: Config; connection?: NativeConnection; workflowBundle?: WorkerOptions['workflowBundle'] } = {}): Promise<PipelineWorker> {
  const config = options.config ?? loadConfig();
  const connection = options.connection ?? (await NativeConnection.connect({ address: config.temporalAddress }));
  const ownQueue = workerTaskQueue(config.taskQueue, config.dataDir);
  const identity = workerIdentity(ownQueue);
  const common = {
    connection,
    namespace: config.temporalNamespace,
    identity,
    // Per source: rows staged and rejected, phase durations (lib/metrics/worker-metrics.ts);
    // what runs, for the event-loop watch to name (lib/metrics/running-activities.ts).
    interceptors: { activity: [pipelineMetrics, trackRunningActivities] },
    // The SDK passes an activity's beats on to the server at most every 0.8 × its heartbeat
    // timeout: 24 s of a stage's 30, which left 6 s for a slow answer on a busy host before the
    // server retried a live attempt (a national refresh on 2 cores). Every few seconds instead.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
  };
  const shared = await Worker.create({
    ...common,
    taskQueue: config.taskQueue,
    activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    // Two cores: downloads, validations, publishes and the rest four at a time (stages have
    // slots of their own: activities/stage-slots.ts).
    maxConcurrentActivityTaskExecutions: 4,
  });
  const own = await Worker.create({
    ...common,
    taskQueue: ownQueue,
    activities: WORKER_QUEUE_ACTIVITIES,
    // Every task is taken at once, so that a task waiting here longer than its schedule-to-start
    // timeout means a dead worker, never a busy one; stages then wait for one of this process's
    // stage slots inside the activity, heartbeating (activities/stage-slots.ts).
    maxConcurrentActivityTaskExecutions: 200,
  });
  const shutdown = () => {
    for (const worker of [shared, own]) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return {
    taskQueue: config.taskQueue,
    workerTaskQueue: ownQueue,
    async run() {
      // One worker ending stops the other: a process polling only one of its queues is a trap.
      const results = await Promise.allSettled([shared.run(), own.run()].map((run) => run.finally(shutdown)));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
    shutdown,
  };
}
