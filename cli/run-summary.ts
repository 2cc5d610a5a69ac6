import type { RunSummary } from '../activities/types.js';
import { formatDuration, printTable } from './output.js';

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
