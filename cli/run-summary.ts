import { WorkflowFailedError } from '@temporalio/client';
import type { RunSummary } from '../activities/types.js';
import { formatDuration, printJson, printTable } from './output.js';
import { OutcomeUnknownError } from './wait-for-run.js';

export function printRunSummary(summary: RunSummary, temporalUiUrl?: string): void {
  console.log(`run ${summary.runId} (${summary.kind}): ${summary.outcome} in ${formatDuration(summary.durationMs)}`);
  printTable(
    summary.sources.map((s) => ({
      source: s.sourceId,
      outcome: s.outcome,
      read: s.rowsRead,
      staged: s.rowsStaged,
      rejected: s.rowsRejected,
      repaired: s.rowsRepaired,
      inserted: s.inserted,
      updated: s.updated,
      deleted: s.deleted,
      duration: formatDuration(s.durationMs),
    })),
  );
  for (const failed of summary.sources.filter((s) => s.error)) console.log(`  ${failed.sourceId}: ${failed.error}`);
  if (temporalUiUrl) console.log(`Temporal UI: ${temporalUiUrl}/namespaces/default/workflows?query=NordpropRunId%3D%22${summary.runId}%22`);
  // A full refresh derives the datasets after its sources, as a run of its own.
  if (summary.derived) printRunSummary(summary.derived, temporalUiUrl);
}

/**
 * Waits for a run's workflow and prints its summary (or its failure) as a table or JSON; the
 * exit code is 0 only for a run that succeeded. When the outcome cannot be known (the server
 * stayed unreachable past the reconnect timeout), it is `unknown`, not `failed`: the run may
 * well be going on.
 */
export async function reportRun(
  result: Promise<RunSummary>,
  run: { runId: string; workflowId: string; label: string; json: boolean; temporalUiUrl: string },
): Promise<number> {
  let summary: RunSummary;
  try {
    summary = await result;
  } catch (error) {
    const unknown = error instanceof OutcomeUnknownError;
    const message = error instanceof WorkflowFailedError ? (error.cause?.message ?? error.message) : (error as Error).message;
    if (run.json) printJson({ runId: run.runId, workflowId: run.workflowId, outcome: unknown ? 'unknown' : 'failed', error: message });
    else if (unknown) console.error(`${run.label} ${run.runId}: ${message}; see later with: nordprop runs show ${run.runId}`);
    else console.error(`${run.label} ${run.runId} failed: ${message}`);
    return 1;
  }
  if (run.json) printJson({ ...summary, workflowId: run.workflowId, temporalUi: run.temporalUiUrl });
  else printRunSummary(summary, run.temporalUiUrl);
  return summary.outcome === 'succeeded' ? 0 : 1;
}
