/**
 * Brønnøysund's full downloads in JSON (`enheter/lastned`, `underenheter/lastned`): one JSON
 * array of records, a million of them, read element by element with stream-json so only the
 * record in hand is in memory. Positions are 1-based array indexes.
 */
import type { Readable } from 'node:stream';
import streamArray from 'stream-json/streamers/stream-array.js';
import { InputFormatError } from '../../formats/input-error.js';
import { RecordError } from '../../formats/json-lines.js';
import type { ParsedRecord } from '../../source-adapter.js';
import { businessRecordValues } from './record.js';

const BATCH = 500;

export async function* readBusinessJson(input: Readable, options: { label: string; subUnit?: boolean }): AsyncGenerator<ParsedRecord[]> {
  const elements = input.pipe(streamArray.withParserAsStream());
  input.on('error', (error) => elements.destroy(error));
  let batch: ParsedRecord[] = [];
  try {
    for await (const { key, value } of elements as AsyncIterable<{ key: number; value: unknown }>) {
      const position = key + 1;
      try {
        batch.push({ kind: 'row', position, values: businessRecordValues(value, { subUnit: options.subUnit }) });
      } catch (error) {
        if (!(error instanceof RecordError)) throw error;
        batch.push({ kind: 'reject', position, reason: error.message, raw: JSON.stringify(value) });
      }
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    if (error instanceof InputFormatError) throw error;
    throw new InputFormatError(`${options.label} is not a JSON array of Enhetsregisteret records: ${(error as Error).message}`);
  }
  if (batch.length) yield batch;
}
