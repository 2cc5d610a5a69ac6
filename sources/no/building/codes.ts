/**
 * The Matrikkel's building code lists (bygningstype, bygningsstatus), read once from the
 * copies in `sources/no/data/` (origin in its README), and the mapping of a status code to
 * the status the API serves.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { PROJECT_ROOT } from '../../../lib/config.js';

const DATA_DIR = path.join(PROJECT_ROOT, 'sources', 'no', 'data');

function readCodeList(file: string): ReadonlyMap<string, string> {
  const rows = parse(readFileSync(path.join(DATA_DIR, file), 'utf8'), { columns: true, skip_empty_lines: true }) as { code: string; name: string }[];
  return new Map(rows.map((row) => [row.code, row.name]));
}

/** Bygningstype code → name, all 127 codes. */
export const BUILDING_TYPES = readCodeList('bygningstype.csv');
/** Bygningsstatus code → Norwegian name, all 19 codes. */
export const BUILDING_STATUS_NAMES = readCodeList('bygningsstatus.csv');

/**
 * Bygningsstatus → the API's status. The spec names IN_USE and UNDER_CONSTRUCTION; every
 * other code keeps its own meaning under a name of its own rather than being folded into those.
 */
const STATUS_BY_CODE: Record<string, string> = {
  RA: 'UNDER_CONSTRUCTION', // rammetillatelse
  IG: 'UNDER_CONSTRUCTION', // igangsettingstillatelse
  MB: 'IN_USE', // midlertidig brukstillatelse
  FA: 'IN_USE', // ferdigattest
  TB: 'IN_USE', // tatt i bruk
  MT: 'NOTIFIED_MEASURE_REGISTERED',
  MF: 'NOTIFIED_MEASURE_COMPLETED',
  IP: 'NOT_SUBJECT_TO_REGISTRATION',
  GR: 'APPROVED_FOR_DEMOLITION',
  BR: 'DEMOLISHED',
  BA: 'CONSTRUCTION_CANCELLED',
  BF: 'MOVED',
  BU: 'BUILDING_NUMBER_EXPIRED',
  FS: 'EXEMPT_FROM_APPLICATION',
  EB: 'BUILDING_DATA_CHANGED',
  TE: 'EXTENSION_MADE_SEPARATE_BUILDING',
  TA: 'ESTABLISHED_AS_EXTENSION',
  SB: 'BUILDING_SPLIT',
  DO: 'CHANGE_DATA_TRANSFERRED',
};

for (const code of BUILDING_STATUS_NAMES.keys()) {
  if (!(code in STATUS_BY_CODE)) throw new Error(`bygningsstatus ${code} has no API status; add it to STATUS_BY_CODE`);
}

/** The API status of a bygningsstatus code, or undefined for a code not in the list. */
export function buildingStatusOf(code: string): string | undefined {
  return BUILDING_STATUS_NAMES.has(code) ? STATUS_BY_CODE[code] : undefined;
}

/** A bygningstype value as written (`111`, ` `, ``): its code, null when not set, or undefined when unknown. */
export function buildingTypeCodeOf(text: string | null | undefined): string | null | undefined {
  const code = (text ?? '').trim();
  if (code === '') return null;
  return BUILDING_TYPES.has(code) ? code : undefined;
}
