import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import * as activities from '../../activities/index.js';
import { loadConfig, type Config } from '../config.js';
import { pipelineMetrics } from '../metrics/worker-metrics.js';

/** The workflows entry point, next to this file's tree whether running from sources or dist/. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.js', import.meta.url));

/**
 * The pipeline worker: every activity and workflow on one task queue. Workflow code is bundled
 * once per worker start (or passed in prebuilt, as the tests do).
 */
export async function createWorker(options: { config?: Config; connection?: NativeConnection; workflowBundle?: WorkerOptions['workflowBundle'] } = {}): Promise<Worker> {
  const config = options.config ?? loadConfig();
  const connection = options.connection ?? (await NativeConnection.connect({ address: config.temporalAddress }));
  return Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    // Two cores: a couple of sources stream at once; the rest queue.
    maxConcurrentActivityTaskExecutions: 4,
    // Per source: rows staged and rejected, phase durations (lib/metrics/worker-metrics.ts).
    interceptors: { activity: [pipelineMetrics] },
  });
}
