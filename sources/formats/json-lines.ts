import type { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { PROJECT_ROOT } from '../../lib/config.js';
import { readFailure } from './input-error.js';
import { readUnquotedLines } from './unquoted-csv.js';
import type { CellValue, ParsedRecord } from '../source-adapter.js';

/**
 * JSON Lines exchange files: one JSON object per line, each checked against the feed's JSON
 * Schema in `schema/exchange/<feed>.schema.json` before the adapter maps it to staging values.
 * This is the format nordprop defines for registers that publish no open bulk format (the
 * land register, matrikkel details, permits, …). A line that is not JSON, or breaks the
 * schema, or that the adapter refuses, becomes a reject with its line number and reason.
 */

export const EXCHANGE_SCHEMA_DIR = path.join(PROJECT_ROOT, 'schema', 'exchange');

/** Thrown by a `toRow` mapper for a record the schema allows but the register's rules do not. */
export class RecordError extends Error {}

const ajv = new Ajv2020({ allErrors: false, strict: true });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

/** The compiled validator of `schema/exchange/<feed>.schema.json`. */
export function exchangeValidator(feed: string): ValidateFunction {
  let validate = compiled.get(feed);
  if (!validate) {
    const schema = JSON.parse(readFileSync(path.join(EXCHANGE_SCHEMA_DIR, `${feed}.schema.json`), 'utf8')) as object;
    validate = ajv.compile(schema);
    compiled.set(feed, validate);
  }
  return validate;
}

function describeSchemaError(error: ErrorObject | undefined): string {
  if (!error) return 'does not match the schema';
  const where = error.instancePath || '(record)';
  const extra = error.keyword === 'additionalProperties' ? ` "${(error.params as { additionalProperty: string }).additionalProperty}"` : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

export async function* readJsonLines<T>(
  input: Readable,
  options: { feed: string; label: string; toRow: (record: T, line: number) => CellValue[] },
): AsyncGenerator<ParsedRecord[]> {
  const validate = exchangeValidator(options.feed);
  for await (const lines of readUnquotedLines(input, { delimiter: '\u0000', label: options.label })) {
    const batch: ParsedRecord[] = [];
    for (const { number, text } of lines) {
      const reject = (reason: string) => batch.push({ kind: 'reject', position: number, reason, raw: text });
      if (text.trim() === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (error) {
        reject(`not valid JSON: ${(error as Error).message}`);
        continue;
      }
      if (!validate(record)) {
        reject(`schema ${options.feed}: ${describeSchemaError(validate.errors?.[0])}`);
        continue;
      }
      try {
        batch.push({ kind: 'row', position: number, values: options.toRow(record as T, number) });
      } catch (error) {
        // Not the record's fault as the adapter sees it; but garbage from a damaged zip entry
        // is reported as the damage.
        if (!(error instanceof RecordError)) throw await readFailure(error, { input, label: options.label, translate: false });
        reject(error.message);
      }
    }
    if (batch.length) yield batch;
  }
}
