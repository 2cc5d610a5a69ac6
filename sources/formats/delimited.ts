import { Readable } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';
import type { CellValue, ParsedRecord } from '../source-adapter.js';
import { InputFormatError, readFailure } from './input-error.js';
import { MAX_RECORD_BYTES, recordTooLong } from './record-size.js';

/**
 * Quoted delimiter-separated text (Bolagsverket's `;` file with every field quoted, SCB's TAB
 * file, code tables) read with csv-parse, in batches. A record csv-parse cannot read (an
 * unclosed quote, a stray quote inside a field) comes back as an error line with its raw text
 * instead of failing the whole file, so the adapter can quarantine it like any other bad row.
 * Column counts are left to the adapter, which knows the header.
 */

export type DelimitedLine =
  | { line: number; fields: string[]; raw: string; error?: undefined }
  | { line: number; error: string; raw: string; fields?: undefined };

export async function* readDelimited(
  text: AsyncIterable<string>,
  options: { delimiter: string; quote: string | false; batchSize?: number; /** The file, for the error message. */ label?: string },
): AsyncGenerator<DelimitedLine[]> {
  const batchSize = options.batchSize ?? 2000;
  let batch: DelimitedLine[] = [];
  // csv-parse reports a skipped record while it parses, ahead of the records it has queued
  // but not yet handed out; held here so lines come out in file order.
  let skipped: DelimitedLine[] = [];
  let lastSkippedLine = -1;
  const parser = parse({
    delimiter: options.delimiter,
    quote: options.quote === false ? null : options.quote,
    bom: true,
    info: true,
    raw: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined, raw: string | undefined) => {
      const line = Number((error as { lines?: number } | undefined)?.lines ?? 0);
      // A record this long is no register's row but a file this reader cannot split: it fails.
      if (error?.code === 'CSV_MAX_RECORD_SIZE') {
        parser.destroy(recordTooLong(options.label ?? 'delimited text', line));
        return undefined;
      }
      // After a bad quote csv-parse may trip again further along the same line: one reject per line.
      if (skipped.at(-1)?.line === line || lastSkippedLine === line) return undefined;
      lastSkippedLine = line;
      skipped.push({ line, error: error?.message ?? 'unreadable record', raw: (raw ?? '').replace(/\r?\n$/, '') });
      return undefined;
    },
  });
  const source = Readable.from(text);
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  let line = 0;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; raw: string; info: { lines: number } }>) {
      line = item.info.lines;
      if (skipped.length) {
        batch.push(...skipped.filter((s) => s.line < item.info.lines));
        skipped = skipped.filter((s) => s.line >= item.info.lines);
      }
      batch.push({ line: item.info.lines, fields: item.record, raw: item.raw.replace(/\r?\n$/, '') });
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    // csv-parse's own errors (those it does not skip as a record) carry the line they stopped at.
    const at = Number((error as { lines?: unknown }).lines) || line + 1;
    throw await readFailure(error, { input: text, label: options.label ?? 'delimited text', at: `at line ${at}` });
  }
  batch.push(...skipped);
  if (batch.length) yield batch;
}

/**
 * A delimited file with a header row, columns found by name (case-insensitive, so column order
 * and extra columns do not matter). Each data line becomes the adapter's row or a reject with
 * its line number; a header missing a required column fails the file.
 */
export async function* readHeaderedRecords<C extends string>(
  text: AsyncIterable<string>,
  options: {
    delimiter: string;
    quote: string | false;
    label: string;
    /** What the file should be, for the unknown-header message. */
    expected: string;
    required: readonly C[];
    optional: readonly C[];
    toRow: (field: (column: C) => string | undefined, line: number) => CellValue[];
    isRowProblem: (error: unknown) => error is Error;
  },
): AsyncGenerator<ParsedRecord[]> {
  let index: Map<C, number> | undefined;
  let width = 0;
  let adapterFailed = false;
  try {
    for await (const lines of readDelimited(text, options)) {
      const records: ParsedRecord[] = [];
      for (const item of lines) {
        if (item.error !== undefined) {
          if (!index) throw new InputFormatError(`${options.label}: unreadable header line: ${item.error}`);
          records.push({ kind: 'reject', position: item.line, reason: `unreadable line: ${item.error}`, raw: item.raw });
          continue;
        }
        if (!index) {
          const positions = new Map(item.fields.map((name, i) => [name.trim().toLowerCase(), i]));
          const missing = options.required.filter((name) => !positions.has(name));
          if (missing.length) {
            throw new InputFormatError(`${options.label}: unknown header, missing column(s) ${missing.join(', ')}; expected ${options.expected}; got: ${item.fields.slice(0, 8).join(options.delimiter)}…`);
          }
          index = new Map([...options.required, ...options.optional].map((name) => [name, positions.get(name) ?? -1]));
          width = item.fields.length;
          continue;
        }
        if (item.fields.length !== width) {
          records.push({ kind: 'reject', position: item.line, reason: `row has ${item.fields.length} columns, the header has ${width}`, raw: item.raw });
          continue;
        }
        const known = index;
        const field = (column: C) => {
          const i = known.get(column) ?? -1;
          return i < 0 ? undefined : item.fields[i];
        };
        try {
          records.push({ kind: 'row', position: item.line, values: options.toRow(field, item.line) });
        } catch (error) {
          if (!options.isRowProblem(error)) {
            adapterFailed = true;
            throw error;
          }
          records.push({ kind: 'reject', position: item.line, reason: error.message, raw: item.raw });
        }
      }
      if (records.length) yield records;
    }
    if (!index) throw new InputFormatError(`${options.label} is empty: no header line`);
  } catch (error) {
    // A header that is garbage because the zip entry is damaged is reported as the damage;
    // an adapter's own failure (toRow) is passed on as it is otherwise.
    throw await readFailure(error, { input: text, label: options.label, translate: !adapterFailed });
  }
}
