import { beatingWhileRunning } from './heartbeat.js';
import * as ledger from './ledger.js';
import * as publish from './publish.js';
import * as derive from './derive.js';
import * as reconcile from './reconcile.js';
import * as workerQueues from './worker-queues.js';

export { downloadArtifact } from './download.js';
export { stageArtifact } from './stage.js';
export { validateStaged } from './validate.js';
export { publishStaged } from './publish.js';
export { deriveDataset } from './derive.js';
export { dispatchEvents, attemptDelivery, failDelivery } from './deliveries.js';
export { sendRunAlert } from './alerts.js';

// The bookkeeping around the long activities, which beat on their own: these beat on a timer
// (the workflows give them a heartbeat timeout, so a worker killed in one is noticed in half a minute).
export const planRun = beatingWhileRunning(ledger.planRun);
export const startSourceRun = beatingWhileRunning(ledger.startSourceRun);
export const finishSourceRun = beatingWhileRunning(ledger.finishSourceRun);
export const finishRun = beatingWhileRunning(ledger.finishRun);
export const getSourceRunSummary = beatingWhileRunning(ledger.getSourceRunSummary);
export const dropStaging = beatingWhileRunning(publish.dropStaging);
export const planDerive = beatingWhileRunning(derive.planDerive);
export const dropDerivedStaging = beatingWhileRunning(derive.dropDerivedStaging);
export const reconcileAbandonedRuns = beatingWhileRunning(reconcile.reconcileAbandonedRuns);
export const closeCancelledRun = beatingWhileRunning(reconcile.closeCancelledRun);
export const listWorkerTaskQueues = beatingWhileRunning(workerQueues.listWorkerTaskQueues);
