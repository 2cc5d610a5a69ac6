import { loadConfig } from '../../lib/config.js';
import { createWorker } from '../../worker/pipeline-worker.js';
import { installWorkerMetrics } from '../../lib/metrics/worker-metrics.js';
import { watchEventLoopDelay } from '../../lib/metrics/event-loop-delay.js';
import { runningActivities } from '../../lib/metrics/running-activities.js';
import { Runtime } from '@temporalio/worker';

/** Runs the pipeline worker until SIGINT/SIGTERM (the SDK shuts down gracefully on those). */
export async function workerCommand(): Promise<number> {
  const config = loadConfig();
  // Before the worker connects: the SDK's runtime is created once, with its metrics exporter.
  const metrics = installWorkerMetrics(config);
  if (metrics) console.log(`worker metrics on http://${metrics}/metrics`);
  // Logged when it stalls, with or without a metrics address.
  watchEventLoopDelay(Runtime.instance().metricMeter, { running: runningActivities });
  const worker = await createWorker({ config });
  console.log(`worker polling task queue ${config.taskQueue} and its own ${worker.workerTaskQueue} on ${config.temporalAddress} (namespace ${config.temporalNamespace})`);
  await worker.run();
  return 0;
}
