import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import type { RunSummary } from '../activities/types.js';

// One short POST, retried with backoff for up to four hours (30 s, 1 min, 2 min, … then every
// 30 min): an operator channel that is down for the night still gets the alert in the morning.
const { sendRunAlert } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '4 hours',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
});

export const alertWorkflowId = (runId: string) => `alert-${runId}`;

/**
 * Sends the alert of a run that ended partial or failed (activities/alerts.ts). Started by the
 * run's workflow and abandoned by it, so the run ends at once, whatever becomes of the alert; an
 * alert never delivered leaves this workflow Failed in the Temporal UI.
 */
export async function alertRun(summary: RunSummary): Promise<{ sent: boolean }> {
  return sendRunAlert(summary);
}
