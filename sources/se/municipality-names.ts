/**
 * Swedish municipality names by kommunkod, read once from `sources/se/data/kommuner.csv` (origin
 * in its README). Registers that write a designation as free text sometimes put the
 * registerområde (the municipality's name) in front of it; knowing the name is what lets
 * `cadastreIdFromText` take it off instead of folding it into the trakt.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { PROJECT_ROOT } from '../../lib/config.js';

const rows = parse(readFileSync(path.join(PROJECT_ROOT, 'sources', 'se', 'data', 'kommuner.csv'), 'utf8'), { columns: true, skip_empty_lines: true }) as {
  municipality_code: string;
  municipality_name_short: string;
}[];
const NAMES = new Map(rows.map((row) => [row.municipality_code, row.municipality_name_short]));

/** `0114` → `Upplands Väsby`; undefined for a code that is not a Swedish municipality. */
export const municipalityName = (kommunkod: string): string | undefined => NAMES.get(kommunkod);
