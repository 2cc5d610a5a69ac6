import { executeChild, isCancellation, proxyActivities, upsertSearchAttributes, uuid4, workflowInfo } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import { BOOKKEEPING } from './activity-options.js';
import type { RunKind, RunSummary } from '../activities/types.js';
import type { Country } from '../lib/domain/country.js';
import { ingestSource } from './ingest-source.js';
import { deriveDatasets, deriveWorkflowId } from './derive.js';
import { COUNTRY_KEY, RUN_ID_KEY, SOURCE_KEY } from '../lib/temporal/search-attribute-keys.js';
import { closingOnCancel, finishWithOutcome } from './finish-run.js';
import { describeError } from '../lib/describe-error.js';
import { formatRunId } from './run-id.js';

const { planRun, startSourceRun, finishSourceRun, dropStaging, reconcileAbandonedRuns } = proxyActivities<typeof activities>(BOOKKEEPING);

export interface RefreshInput {
  /** Given by the CLI so it can follow the run; generated when a schedule starts the workflow. */
  runId?: string;
  country?: Country;
  sources?: string[];
  force?: boolean;
  /** Compute the derived datasets after the sources (default: when no sources are named). */
  derive?: boolean;
  /** Derived datasets computed at once (DeriveInput.concurrency; its default when omitted). */
  deriveConcurrency?: number;
}

export interface BackfillInput {
  runId?: string;
  sourceId: string;
  input: string;
  expectedSha256?: string;
  force?: boolean;
}

// In workflow code Date and uuid4 are deterministic (replayed from history).
const newRunId = () => formatRunId(new Date(), uuid4());

export const ingestWorkflowId = (sourceId: string, runId: string) => `ingest-${sourceId}-${runId}`;

async function runSources(kind: RunKind, runId: string, request: { country?: Country; sources?: string[]; force: boolean; input?: string; expectedSha256?: string }): Promise<RunSummary> {
  upsertSearchAttributes([{ key: RUN_ID_KEY, value: runId }]);
  // Runs whose workflow was terminated left their ledger entries open and their staging behind.
  await reconcileAbandonedRuns();
  const planned = await planRun({ runId, kind, workflowId: workflowInfo().workflowId, country: request.country, sources: request.sources, force: request.force });
  // Sources run side by side, one child workflow each; a source that reads another's publish
  // (its `dependsOn`) waits for it when both are in this run. A failed dependency does not
  // hold it back: it then reads the dependency's previous live data, which is consistent.
  const finished = new Map<string, Promise<unknown>>();
  const ingest = async ({ sourceId, country, dependsOn }: (typeof planned)[number]) => {
    await Promise.resolve(); // let the loop below register every source before looking one up
    await Promise.all(dependsOn.map((dependency) => finished.get(dependency)).filter((p) => p !== undefined));
    await startSourceRun({ runId, sourceId, country });
    try {
      await executeChild(ingestSource, {
        workflowId: ingestWorkflowId(sourceId, runId),
        args: [{ runId, sourceId, input: request.input, expectedSha256: request.expectedSha256, force: request.force }],
        typedSearchAttributes: [
          { key: SOURCE_KEY, value: sourceId },
          { key: COUNTRY_KEY, value: country },
          { key: RUN_ID_KEY, value: runId },
        ],
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      // A failed source has recorded its failure; one whose workflow was terminated or timed
      // out could not, and is closed here (finishSourceRun leaves a recorded outcome alone).
      await finishSourceRun({ runId, sourceId, outcome: 'failed', error: `ingest workflow ended without finishing: ${describeError(error)}` });
      await dropStaging({ runId, sourceId });
    }
  };
  return closingOnCancel(runId, async () => {
    for (const source of planned) finished.set(source.sourceId, ingest(source));
    await Promise.all(finished.values());
    return finishWithOutcome(runId);
  });
}

/** The nightly refresh (and `nordprop refresh`): every selected source from its configured input. */
export async function nightlyRefresh(input: RefreshInput = {}): Promise<RunSummary> {
  const runId = input.runId ?? newRunId();
  const kind: RunKind = input.runId ? 'refresh' : 'nightly';
  const summary = await runSources(kind, runId, { country: input.country, sources: input.sources, force: input.force ?? false });
  if (!(input.derive ?? !input.sources?.length)) return summary;
  // After every source has published: the derived datasets, as a run of their own in the ledger.
  const deriveRunId = `${runId}-derive`;
  const derived = await executeChild(deriveDatasets, {
    workflowId: deriveWorkflowId(deriveRunId),
    args: [{
      runId: deriveRunId,
      countries: input.country ? [input.country] : undefined,
      skipUnchanged: !input.force,
      ...(input.deriveConcurrency === undefined ? {} : { concurrency: input.deriveConcurrency }),
    }],
    typedSearchAttributes: [{ key: RUN_ID_KEY, value: deriveRunId }],
  });
  return { ...summary, derived };
}

/** One source from an explicit file or URL, e.g. to reload history or a corrected extract. */
export async function backfill(input: BackfillInput): Promise<RunSummary> {
  const runId = input.runId ?? newRunId();
  return runSources('backfill', runId, { sources: [input.sourceId], force: input.force ?? false, input: input.input, expectedSha256: input.expectedSha256 });
}
