/**
 * The fault suite's worker process: what `nordprop worker` runs (cli/commands/worker.ts), from
 * the TypeScript sources, with the workflow bundle the test run's global setup built from the
 * same sources (the CLI bundles `workflows/index.js`, which exists only in the compiled dist/).
 */
import { loadConfig } from '../../../lib/config.js';
import { createWorker } from '../../../worker/pipeline-worker.js';

const codePath = process.env.NORDPROP_FAULT_WORKFLOW_BUNDLE;
if (!codePath) throw new Error('NORDPROP_FAULT_WORKFLOW_BUNDLE names no workflow bundle');
const config = loadConfig();
const worker = await createWorker({ config, workflowBundle: { codePath } });
console.log(`worker polling task queue ${config.taskQueue} and its own ${worker.workerTaskQueue} on ${config.temporalAddress} (namespace ${config.temporalNamespace})`);
await worker.run();
