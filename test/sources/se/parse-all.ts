import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { ParsedRecord, SourceAdapter } from '../../../sources/source-adapter.js';

/** Every record a source's parser yields for a file, rows and rejects, in file order. */
export async function parseAll(source: SourceAdapter, filePath: string): Promise<{ rows: Extract<ParsedRecord, { kind: 'row' }>[]; rejects: Extract<ParsedRecord, { kind: 'reject' }>[] }> {
  const rows: Extract<ParsedRecord, { kind: 'row' }>[] = [];
  const rejects: Extract<ParsedRecord, { kind: 'reject' }>[] = [];
  for await (const batch of source.parse(createReadStream(filePath), { fileName: path.basename(filePath) })) {
    for (const record of batch) (record.kind === 'row' ? rows : rejects).push(record as never);
  }
  return { rows, rejects };
}

/** A staged row as an object keyed by the source's staging column names. */
export function rowObject(source: SourceAdapter, values: readonly unknown[]): Record<string, unknown> {
  return Object.fromEntries(source.stagingColumns.map((column, i) => [column.name, values[i]]));
}
