import { CancellationScope, isCancellation, log, ParentClosePolicy, patched, proxyActivities, startChild, upsertSearchAttributes } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import { BOOKKEEPING } from './activity-options.js';
import type { RunSummary } from '../activities/types.js';
import { OUTCOME_KEY, RUN_ID_KEY } from '../lib/temporal/search-attribute-keys.js';
import { alertRun, alertWorkflowId } from './alert.js';

const { finishRun, closeCancelledRun } = proxyActivities<typeof activities>(BOOKKEEPING);

/**
 * Closes the run in the ledger and says its outcome in a search attribute too (last night's
 * partial run is found by it). A run that did not succeed is announced to the operator channel by
 * an alert workflow of its own, which this one does not wait for.
 */
export async function finishWithOutcome(runId: string): Promise<RunSummary> {
  const summary = await finishRun({ runId });
  upsertSearchAttributes([{ key: OUTCOME_KEY, value: summary.outcome }]);
  // Runs started before alerts existed replay without them (their history starts no alert).
  if (summary.outcome !== 'succeeded' && patched('run-alert')) await startAlert(summary);
  return summary;
}

/**
 * Runs the run's `work`; when the run is cancelled meanwhile, closes its ledger before the
 * cancellation goes on (its sources still open fail as cancelled, the run gets its outcome):
 * otherwise the run showed `running` until the next run's reconcile found its workflow closed.
 */
export async function closingOnCancel<T>(runId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Runs started before replay without it (their history closes nothing here).
    if (!isCancellation(error) || !patched('close-run-on-cancel')) throw error;
    await CancellationScope.nonCancellable(async () => {
      const summary = await closeCancelledRun({ runId });
      upsertSearchAttributes([{ key: OUTCOME_KEY, value: summary.outcome }]);
    });
    throw error;
  }
}

async function startAlert(summary: RunSummary): Promise<void> {
  try {
    await startChild(alertRun, {
      workflowId: alertWorkflowId(summary.runId),
      args: [summary],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [{ key: RUN_ID_KEY, value: summary.runId }],
    });
  } catch (error) {
    // An alert must never fail the run it reports on.
    if (isCancellation(error)) throw error;
    log.warn('could not start the run alert', { runId: summary.runId, error: String(error) });
  }
}
