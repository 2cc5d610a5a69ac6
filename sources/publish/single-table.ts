import type { SourceAdapter, StagingColumn } from '../source-adapter.js';
import { mergeTable, type TableMerge } from './merge-table.js';
import { stepTimer } from './step-timer.js';

/**
 * For the many sources whose rows go to exactly one live table with a plain key + row-hash
 * merge: the publish, reporting the counts under the live table's name as the ledger expects.
 */
export function publishInto(merge: TableMerge): SourceAdapter['publish'] {
  return async ({ client, stagingTable, runId, removedKeys }, scope) => {
    const timer = stepTimer();
    const counts = await mergeTable(client, stagingTable, merge, scope, runId, { timer, removedKeys });
    return { ...counts, tables: { [merge.liveTable]: counts }, stepsMs: timer.steps };
  };
}

/** Every staging column after the first (the key), copied to the live column of the same name. */
export function columnsAsStaged(stagingColumns: readonly StagingColumn[]): Record<string, string> {
  return Object.fromEntries(stagingColumns.slice(1).map((column) => [column.name, `s.${column.name}`]));
}
