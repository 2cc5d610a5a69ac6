export { ingestSource } from './ingest-source.js';
export { nightlyRefresh, backfill } from './refresh.js';
export { deriveDatasets } from './derive.js';
export { deliverWebhook } from './deliver-webhook.js';
export { alertRun } from './alert.js';
