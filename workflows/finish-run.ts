import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import type { RunSummary } from '../activities/types.js';
import { OUTCOME_KEY } from './search-attributes.js';

const { finishRun } = proxyActivities<typeof activities>({ startToCloseTimeout: '5 minutes', retry: { maximumAttempts: 10 } });

/** Closes the run in the ledger and says its outcome in a search attribute too (last night's partial run is found by it). */
export async function finishWithOutcome(runId: string): Promise<RunSummary> {
  const summary = await finishRun({ runId });
  upsertSearchAttributes([{ key: OUTCOME_KEY, value: summary.outcome }]);
  return summary;
}
