import { isCancellation, patched, proxyActivities, upsertSearchAttributes, uuid4, workflowInfo } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import { BOOKKEEPING } from './activity-options.js';
import type { RunSummary, SourceRunSummary } from '../activities/types.js';
import type { PlannedDerivation } from '../activities/derive.js';
import type { Country } from '../lib/domain/country.js';
import { RUN_ID_KEY } from '../lib/temporal/search-attribute-keys.js';
import { formatRunId } from './run-id.js';
import { dispatchPendingEvents } from './deliver-dispatch.js';
import { describeError } from '../lib/describe-error.js';
import { closingOnCancel, finishWithOutcome } from './finish-run.js';
import { DEFAULT_DERIVE_CONCURRENCY, runInDependencyOrder } from './derive-order.js';

// A dataset is one long set-based computation and one merge: no heartbeat progress to resume
// from, so a retry computes again (idempotent: the publish checks the ledger first).
const { deriveDataset } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 3, initialInterval: '10 seconds' },
});
const { planDerive, startSourceRun, finishSourceRun, dropDerivedStaging, getSourceRunSummary } = proxyActivities<typeof activities>(BOOKKEEPING);

export interface DeriveInput {
  /** Given by the CLI (or the nightly refresh) so it can follow the run; generated otherwise. */
  runId?: string;
  /** Both countries when omitted. */
  countries?: Country[];
  /** Every dataset when omitted. */
  datasets?: string[];
  /** The day computed for, YYYY-MM-DD; today (UTC) when omitted. */
  asOf?: string;
  /** Skip each dataset whose inputs are unchanged since its last computation (the nightly refresh's default). */
  skipUnchanged?: boolean;
  /** Datasets computed at once (DEFAULT_DERIVE_CONCURRENCY when omitted): more where more workers and database cores serve the run. */
  concurrency?: number;
}

export const deriveWorkflowId = (runId: string) => `derive-${runId}`;

/**
 * Computes the derived datasets, each after the ones of its country it reads, `concurrency` at a
 * time, the longest chains first (derive-order.ts). A failed dataset is ledgered and the others
 * carry on; a dataset whose dependency failed reads the dependency's previous live result, which
 * is consistent.
 */
export async function deriveDatasets(input: DeriveInput = {}): Promise<RunSummary> {
  // Date and uuid4 are deterministic in workflow code (replayed from history).
  const runId = input.runId ?? formatRunId(new Date(), uuid4());
  const asOf = input.asOf ?? new Date().toISOString().slice(0, 10);
  upsertSearchAttributes([{ key: RUN_ID_KEY, value: runId }]);
  const planned = await planDerive({ runId, workflowId: workflowInfo().workflowId, countries: input.countries, datasets: input.datasets });
  const derive = async (step: PlannedDerivation): Promise<SourceRunSummary> => {
    const request = { runId, datasetId: step.datasetId, country: step.country, asOf, skipUnchanged: input.skipUnchanged };
    await startSourceRun({ runId, sourceId: step.ledgerId, country: step.country });
    try {
      return await deriveDataset(request);
    } catch (error) {
      if (isCancellation(error)) throw error;
      await finishSourceRun({ runId, sourceId: step.ledgerId, outcome: 'failed', error: describeError(error) });
      await dropDerivedStaging(request);
      return getSourceRunSummary({ runId, sourceId: step.ledgerId });
    }
  };
  return closingOnCancel(runId, async () => {
    if (patched('derive-by-critical-path')) {
      await runInDependencyOrder(planned, input.concurrency ?? DEFAULT_DERIVE_CONCURRENCY, derive);
    } else {
      // Runs started before: each country's datasets one after another, the countries side by side.
      const countries = [...new Set(planned.map((step) => step.country))];
      await Promise.all(
        countries.map(async (country) => {
          for (const step of planned.filter((s) => s.country === country)) await derive(step);
        }),
      );
    }
    await dispatchPendingEvents(); // webhooks for what the datasets changed (docs/webhooks.md)
    return finishWithOutcome(runId);
  });
}
