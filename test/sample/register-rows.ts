/**
 * A register file as the pipeline reads it: every row its source's own parser yields, by the
 * source's key columns (what a changed night is counted in). No assertions here.
 */
import { openInput } from '../../sources/formats/open-input.js';
import { getSource } from '../../sources/registry.js';

export interface KeyChoice {
  /** Columns that name a row; default the source's key columns. */
  key?: string[];
}

/**
 * Row key (the key columns' values) to the row, as the source's parser reads `file`. Rows that
 * share a key (the parts of one building) are compared as one.
 */
export async function rowsByKey(sourceId: string, file: string, choice: KeyChoice = {}): Promise<Map<string, string>> {
  const source = getSource(sourceId);
  const columnAt = (name: string) => {
    const at = source.stagingColumns.findIndex((column) => column.name === name);
    if (at < 0) throw new Error(`${sourceId}: ${name} is not a staging column`);
    return at;
  };
  const keyAt = (choice.key ?? source.keyColumns).map(columnAt);
  const input = await openInput(file, source.zipEntry);
  const rows = new Map<string, string[]>();
  for await (const batch of source.parse(input.stream, { fileName: input.fileName, artifactPath: file })) {
    for (const record of batch) {
      if (record.kind !== 'row') continue;
      const key = JSON.stringify(keyAt.map((at) => record.values[at]));
      const row = JSON.stringify(record.values);
      const same = rows.get(key);
      if (same) same.push(row);
      else rows.set(key, [row]);
    }
  }
  return new Map([...rows].map(([key, parts]) => [key, parts.sort().join('\n')]));
}

export interface RowDifference {
  /** Rows of the first file. */
  before: number;
  removed: number;
  added: number;
  changed: number;
  /** (removed + added + changed) / before. */
  share: number;
}

/** How two readings of a register differ, counted by key. */
export function differenceOf(before: Map<string, string>, after: Map<string, string>): RowDifference {
  let removed = 0, added = 0, changed = 0;
  for (const [key, row] of before) {
    const now = after.get(key);
    if (now === undefined) removed += 1;
    else if (now !== row) changed += 1;
  }
  for (const key of after.keys()) if (!before.has(key)) added += 1;
  return { before: before.size, removed, added, changed, share: before.size ? (removed + added + changed) / before.size : 0 };
}
