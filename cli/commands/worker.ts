import { loadConfig } from '../../lib/config.js';
import { createWorker } from '../../lib/temporal/worker.js';

/** Runs the pipeline worker until SIGINT/SIGTERM (the SDK shuts down gracefully on those). */
export async function workerCommand(): Promise<number> {
  const config = loadConfig();
  const worker = await createWorker({ config });
  console.log(`worker polling task queue ${config.taskQueue} on ${config.temporalAddress} (namespace ${config.temporalNamespace})`);
  await worker.run();
  return 0;
}
