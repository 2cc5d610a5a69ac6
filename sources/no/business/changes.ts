/**
 * Stages the changes file the updates feed was fetched into (see feed.ts): one feed
 * item per line, with the unit's current record when one was looked up. Each item becomes an
 * upsert (Ny, Endring, Ukjent: the record as it is now), a deletion (Sletting: the unit stays,
 * with its deletion date) or a removal (Fjernet: the unit leaves the store). An item the
 * register could not have sent (an unknown endringstype, a bad org number, no id) is rejected
 * with its line and reason. Positions are line numbers; the publish applies, per unit, only
 * the item with the highest oppdateringsid.
 */
import type { Readable } from 'node:stream';
import { RecordError } from '../../formats/json-lines.js';
import { isJsonObject } from '../../formats/json-object.js';
import { readUnquotedLines } from '../../formats/unquoted-csv.js';
import type { CellValue, ParsedRecord } from '../../source-adapter.js';
import { BUSINESS_FEEDS, type FeedChange } from './feed.js';
import { businessChangeValues, businessRecordValues } from './record.js';
import { orgNumberProblem } from '../org-number.js';

export const CHANGES_FILE = /\.changes\.jsonl$/;

const ENDRINGSTYPER = new Set(['Ny', 'Endring', 'Sletting', 'Fjernet', 'Ukjent']);


function changeValues(change: FeedChange): CellValue[] {
  const spec = BUSINESS_FEEDS.find((f) => f.feed === change.feed);
  if (!spec) throw new RecordError(`unknown feed "${String(change.feed)}"`);
  const item = change.item;
  if (!isJsonObject(item)) throw new RecordError('feed item is not a JSON object');
  const id = item.oppdateringsid;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw new RecordError(`oppdateringsid ${JSON.stringify(id)} is not a positive whole number`);
  const orgId = item.organisasjonsnummer;
  if (typeof orgId !== 'string') throw new RecordError('organisasjonsnummer is missing');
  const problem = orgNumberProblem(orgId);
  if (problem) throw new RecordError(problem);
  const type = item.endringstype;
  if (typeof type !== 'string' || !ENDRINGSTYPER.has(type)) throw new RecordError(`unknown endringstype ${JSON.stringify(type)} (expected Ny, Endring, Sletting, Fjernet or Ukjent)`);
  const day = typeof item.dato === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(item.dato) ? item.dato.slice(0, 10) : null;

  if (type === 'Fjernet') return businessChangeValues(orgId, id, 'remove', spec.subUnit, null);
  if (type === 'Sletting') {
    if (!day) throw new RecordError(`Sletting without a valid dato: ${JSON.stringify(item.dato)}`);
    return businessChangeValues(orgId, id, 'delete', spec.subUnit, day);
  }
  // Ny, Endring, Ukjent: the record as it is now. A unit gone since then answers its own link
  // with 410 ("fjernet") or 404 when removed, and with a stub (slettedato, no navn) when deleted.
  const record = change.record;
  if (isJsonObject(record) && record.organisasjonsnummer !== undefined && record.organisasjonsnummer !== orgId) {
    throw new RecordError(`looked-up record is ${JSON.stringify(record.organisasjonsnummer)}, not ${orgId}`);
  }
  if (change.lookupStatus === 404 || change.lookupStatus === 410) return businessChangeValues(orgId, id, 'remove', spec.subUnit, null);
  if (isJsonObject(record) && record.slettedato !== undefined && record.navn === undefined) {
    const deleted = typeof record.slettedato === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(record.slettedato) ? record.slettedato : day;
    return businessChangeValues(orgId, id, 'delete', spec.subUnit, deleted);
  }
  if (record === undefined) throw new RecordError(`${type} of ${orgId}: the register returned no record for it`);
  return businessRecordValues(record, { subUnit: spec.subUnit, updateId: id });
}

export async function* readBusinessChanges(input: Readable, options: { label: string }): AsyncGenerator<ParsedRecord[]> {
  for await (const lines of readUnquotedLines(input, { delimiter: '\u0000', label: options.label })) {
    const batch: ParsedRecord[] = [];
    for (const { number, text } of lines) {
      if (text.trim() === '') continue;
      try {
        let change: unknown;
        try {
          change = JSON.parse(text);
        } catch (error) {
          throw new RecordError(`not valid JSON: ${(error as Error).message}`);
        }
        if (!isJsonObject(change)) throw new RecordError('change line is not a JSON object');
        batch.push({ kind: 'row', position: number, values: changeValues(change as unknown as FeedChange) });
      } catch (error) {
        if (!(error instanceof RecordError)) throw error;
        const item = (() => {
          try {
            return JSON.stringify((JSON.parse(text) as FeedChange).item);
          } catch {
            return text;
          }
        })();
        batch.push({ kind: 'reject', position: number, reason: error.message, raw: item });
      }
    }
    if (batch.length) yield batch;
  }
}
