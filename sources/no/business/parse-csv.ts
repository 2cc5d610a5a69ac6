/**
 * Brønnøysund's full downloads in CSV (`…/lastned/csv`): comma-separated, every field quoted,
 * nested fields flattened with dots (`forretningsadresse.postnummer`), free text that may hold
 * line breaks. Each row is rebuilt into the JSON record shape and checked by the same rules as
 * the JSON download. csv-parse does the quoting (through the shared delimited reader); a line
 * it cannot read is rejected with its number and the file reads on.
 */
import type { Readable } from 'node:stream';
import { InputFormatError } from '../../formats/input-error.js';
import { RecordError } from '../../formats/json-lines.js';
import { readDelimited } from '../../formats/delimited.js';
import { utf8Text } from '../../formats/text-encoding.js';
import type { ParsedRecord } from '../../source-adapter.js';
import { businessRecordValues } from './record.js';

/** CSV headers spelled differently from the JSON field they carry. */
const CSV_SPELLINGS: Record<string, string> = {
  registreringsdatoenhetsregisteret: 'registreringsdatoEnhetsregisteret',
  registreringsdatoIEnhetsregisteret: 'registreringsdatoEnhetsregisteret',
  registrertIMvaRegisteret: 'registrertIMvaregisteret',
};

/** Sets `a.b.c` in a nested object. */
function setPath(target: Record<string, unknown>, path: string[], value: string): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    node = (typeof next === 'object' && next !== null ? next : (node[part] = {})) as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

export async function* readBusinessCsv(input: Readable, options: { label: string }): AsyncGenerator<ParsedRecord[]> {
  let header: string[][] | null = null;
  let subUnit = false;
  for await (const records of readDelimited(utf8Text(input, options.label), { delimiter: ',', quote: '"' })) {
    const batch: ParsedRecord[] = [];
    for (const { line, fields, raw, error } of records) {
      if (error !== undefined) {
        if (!header) throw new InputFormatError(`${options.label}: unreadable header line: ${error}`);
        batch.push({ kind: 'reject', position: line, reason: `unreadable line: ${error}`, raw });
        continue;
      }
      if (!header) {
        const names = fields.map((name) => name.trim().replace(/^\uFEFF/, ''));
        if (!names.includes('organisasjonsnummer') || !names.includes('navn')) {
          throw new InputFormatError(`${options.label} is not an Enhetsregisteret CSV: the header has no organisasjonsnummer and navn columns (${names.slice(0, 6).join(', ')}…)`);
        }
        header = names.map((name) => (CSV_SPELLINGS[name] ?? name).split('.'));
        subUnit = names.some((name) => name.startsWith('beliggenhetsadresse.'));
        continue;
      }
      if (fields.length !== header.length) {
        batch.push({ kind: 'reject', position: line, reason: `row has ${fields.length} fields, the header has ${header.length}`, raw });
        continue;
      }
      const record: Record<string, unknown> = {};
      header.forEach((path, i) => {
        if (fields[i] !== '') setPath(record, path, fields[i]);
      });
      try {
        batch.push({ kind: 'row', position: line, values: businessRecordValues(record, { subUnit }) });
      } catch (error) {
        if (!(error instanceof RecordError)) throw error;
        batch.push({ kind: 'reject', position: line, reason: error.message, raw });
      }
    }
    if (batch.length) yield batch;
  }
  if (!header) throw new InputFormatError(`${options.label} is empty`);
}
