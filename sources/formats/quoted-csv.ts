import { Readable, pipeline } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { InputFormatError } from './input-error.js';

/**
 * Reads RFC 4180 CSV (fields quoted with `"` where they hold the separator, a quote or a line
 * break), as Enova's energy-certificate file is written, in batches of records. csv-parse does
 * the quoting; this adds what every register reader here needs around it: strict UTF-8 (a file
 * re-saved as Latin-1 fails with the byte offset instead of loading with replacement
 * characters), the line a record starts on (its position for rejects), and its raw text.
 *
 * Records are returned as they are, whatever their width: the caller compares the width with
 * its header and rejects a ragged row with its line, rather than csv-parse failing the file.
 * An unclosed quote does fail the file: everything after it would be one field.
 */

export interface CsvRecord {
  /** 1-based line number where the record starts. */
  line: number;
  fields: string[];
  /** The record's text as in the file, without the final line break. */
  raw: string;
}

async function* strictUtf8(input: Readable, label: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let offset = 0;
  try {
    for await (const chunk of input) {
      const text = decoder.decode(chunk as Buffer, { stream: true });
      offset += (chunk as Buffer).length;
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new InputFormatError(`${label} is not valid UTF-8 near byte ${offset} (is it Latin-1 or Windows-1252?): ${error.message}`);
  }
}

const lineBreaks = (text: string) => {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
};

export async function* readQuotedCsv(
  input: Readable,
  options: { label: string; delimiter?: string; batchSize?: number },
): AsyncGenerator<CsvRecord[]> {
  const batchSize = options.batchSize ?? 2000;
  const parser = parse({
    delimiter: options.delimiter ?? ',',
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    raw: true,
  });
  pipeline(Readable.from(strictUtf8(input, options.label)), parser, () => undefined);
  let batch: CsvRecord[] = [];
  try {
    for await (const { record, raw, info } of parser as AsyncIterable<{ record: string[]; raw: string; info: { lines: number } }>) {
      const text = raw.replace(/\r?\n$/, '');
      // `info.lines` is the line the record ends on; a quoted line break makes it span several.
      batch.push({ line: info.lines - lineBreaks(text), fields: record, raw: text });
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    if (error instanceof CsvError) throw new InputFormatError(`${options.label} is not readable CSV: ${error.message}`);
    throw error;
  }
  if (batch.length) yield batch;
}
