export { planRun, startSourceRun, finishSourceRun, finishRun, getSourceRunSummary } from './ledger.js';
export { downloadArtifact } from './download.js';
export { stageArtifact } from './stage.js';
export { validateStaged } from './validate.js';
export { publishStaged, dropStaging } from './publish.js';
export { planDerive, deriveDataset, dropDerivedStaging } from './derive.js';
export { dispatchEvents, attemptDelivery, failDelivery } from './deliveries.js';
export { reconcileAbandonedRuns } from './reconcile.js';
export { sendRunAlert } from './alerts.js';
