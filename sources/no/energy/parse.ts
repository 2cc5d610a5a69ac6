import type { Readable } from 'node:stream';
import { CadastreIdError, formatCadastreId, normalizeMunicipality, unitFromParts } from '../cadastre-id.js';
import { InputFormatError } from '../../formats/input-error.js';
import { readDelimited } from '../../formats/delimited.js';
import { utf8Text } from '../../formats/text-encoding.js';
import type { CellValue, ParsedRecord, StagingColumn } from '../../source-adapter.js';

/**
 * Enova's energy-certificate (energiattest) bulk file: comma-separated, `"` quoting where a
 * field needs it, 24 columns. Its quirks, all from the reference client that reads it:
 * - `Knr` and `Postnummer` are written as integers, so `0301` may arrive as `301`: padded to 4;
 * - `BeregnetFossilandel` has a decimal comma (inside quotes), `BeregnetLevertEnergiTotaltkWhm2`
 *   a decimal point: both separators are read;
 * - `Utstedelsesdato` has 7 fractional seconds (.NET), local time without an offset;
 * - `Oppvarmingskarakter` is a colour name (`Yellow`), stored as `YELLOW`;
 * - `Organisasjonsnummer` is sometimes written `### ### ###`.
 * Note the column order `Snr` before `Fnr`; the cadastre id is still kommune-gnr-bnr-fnr-snr.
 */

export const ENOVA_COLUMNS = [
  'Knr', 'Gnr', 'Bnr', 'Snr', 'Fnr', 'Andelsnummer', 'Bygningsnummer', 'GateAdresse', 'Postnummer', 'Poststed',
  'BruksEnhetsNummer', 'Organisasjonsnummer', 'Bygningskategori', 'Byggear', 'Energikarakter', 'Oppvarmingskarakter',
  'Utstedelsesdato', 'TypeRegistrering', 'Attestnummer', 'BeregnetLevertEnergiTotaltkWhm2', 'BeregnetFossilandel',
  'Materialvalg', 'HarEnergiVurdering', 'EnergiVurderingDato',
] as const;
type Column = (typeof ENOVA_COLUMNS)[number];

export const ENERGY_STAGING_COLUMNS: StagingColumn[] = [
  { name: 'certificate_id', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'building_number', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'label', type: 'text' },
  { name: 'heating_grade', type: 'text' },
  { name: 'issued_date', type: 'date' },
  { name: 'issued_at', type: 'timestamp' },
  { name: 'address_text', type: 'text' },
  { name: 'postal_code', type: 'text' },
  { name: 'postal_place', type: 'text' },
  { name: 'unit_number', type: 'text' },
  { name: 'share_number', type: 'text' },
  { name: 'organization_number', type: 'text' },
  { name: 'building_category', type: 'text' },
  { name: 'construction_year', type: 'integer' },
  { name: 'registration_type', type: 'text' },
  { name: 'delivered_energy_kwh_m2', type: 'double precision' },
  { name: 'fossil_share', type: 'double precision' },
  { name: 'material', type: 'text' },
  { name: 'has_energy_assessment', type: 'boolean' },
  { name: 'energy_assessment_date', type: 'date' },
];

/**
 * Enova's heating grade (oppvarmingskarakter) is a five-colour scale, dark green best. The file
 * writes English colour names; the Norwegian names are accepted too, since the register's own
 * pages use them. `Green` is how the file writes the top grade.
 */
const HEATING_GRADES: Record<string, string> = {
  red: 'RED', rød: 'RED',
  orange: 'ORANGE', oransje: 'ORANGE',
  yellow: 'YELLOW', gul: 'YELLOW',
  lightgreen: 'LIGHT_GREEN', lysegrønn: 'LIGHT_GREEN',
  green: 'GREEN', darkgreen: 'GREEN', grønn: 'GREEN', mørkegrønn: 'GREEN',
};

class RowError extends Error {}

export function heatingGrade(text: string): string | null {
  if (text === '') return null;
  const grade = HEATING_GRADES[text.toLowerCase().replace(/[\s_-]/g, '')];
  if (!grade) throw new RowError(`Oppvarmingskarakter "${text}" is not a heating-grade colour (Red, Orange, Yellow, LightGreen, Green)`);
  return grade;
}

/** `2023-12-31T23:45:20.0000000` → `2023-12-31 23:45:20.000000` (PostgreSQL keeps microseconds). */
export function registerTimestamp(field: string, text: string): { date: string; timestamp: string } {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?)?$/.exec(text);
  if (!match) throw new RowError(`${field} "${text}" is not a timestamp (yyyy-MM-ddTHH:mm:ss.fffffff)`);
  const [, y, m, d, hh = '00', mm = '00', ss = '00', fraction = ''] = match;
  const day = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(m) - 1 || day.getUTCDate() !== Number(d)) {
    throw new RowError(`${field} "${text}" is not a calendar date`);
  }
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) throw new RowError(`${field} "${text}" is not a time of day`);
  const micro = fraction ? `.${fraction.padEnd(7, '0').slice(0, 6)}` : '';
  return { date: `${y}-${m}-${d}`, timestamp: `${y}-${m}-${d} ${hh}:${mm}:${ss}${micro}` };
}

/** A decimal with either separator (`224.93`, `0,61`); thousands separators are not used by the file. */
export function decimal(field: string, text: string): number | null {
  if (text === '') return null;
  if (!/^-?\d+([.,]\d+)?$/.test(text)) throw new RowError(`${field} "${text}" is not a decimal number`);
  return Number(text.replace(',', '.'));
}

/** An optional code that must match its pattern. */
function code(field: string, text: string, pattern: RegExp, what: string): string | null {
  if (text === '') return null;
  if (!pattern.test(text)) throw new RowError(`${field} "${text}" is not ${what}`);
  return text;
}

function postalCode(text: string): string | null {
  if (text === '') return null;
  if (!/^\d{1,4}$/.test(text)) throw new RowError(`Postnummer "${text}" is not a postal code`);
  return text.padStart(4, '0');
}

function organizationNumber(text: string): string | null {
  const compact = text.replace(/\s+/g, '');
  if (compact === '') return null;
  if (!/^\d{9}$/.test(compact)) throw new RowError(`Organisasjonsnummer "${text}" is not nine digits`);
  return compact;
}

function constructionYear(text: string): number | null {
  if (text === '') return null;
  const year = /^\d{4}$/.test(text) ? Number(text) : NaN;
  if (!(year >= 1000 && year <= 2100)) throw new RowError(`Byggear "${text}" is not a year`);
  return year;
}

function yesNo(field: string, text: string): boolean | null {
  if (text === '') return null;
  const value = text.toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new RowError(`${field} "${text}" is not True or False`);
}

type ColumnIndex = Record<Column, number>;

function indexHeader(header: string[], label: string): ColumnIndex {
  const positions = new Map(header.map((name, i) => [name.trim().toLowerCase(), i]));
  const missing = ENOVA_COLUMNS.filter((name) => !positions.has(name.toLowerCase()));
  if (missing.length) {
    throw new InputFormatError(
      `${label}: unknown header, missing column(s) ${missing.join(', ')}; expected Enova's energiattest CSV (${ENOVA_COLUMNS.length} columns, comma-separated), got: ${header.slice(0, 8).join(',')}…`,
    );
  }
  return Object.fromEntries(ENOVA_COLUMNS.map((name) => [name, positions.get(name.toLowerCase())])) as ColumnIndex;
}

/** One data row → staging values in ENERGY_STAGING_COLUMNS order; throws RowError or CadastreIdError. */
function readRow(index: ColumnIndex, cells: string[]): CellValue[] {
  const f = (column: Column) => (cells[index[column]] ?? '').trim();
  const certificateId = f('Attestnummer');
  if (certificateId === '') throw new RowError('Attestnummer is empty');
  const municipality = normalizeMunicipality(f('Knr'));
  const cadastreId = formatCadastreId(
    unitFromParts({ kommunenummer: municipality, gardsnummer: f('Gnr'), bruksnummer: f('Bnr'), festenummer: f('Fnr'), seksjonsnummer: f('Snr') }),
  );
  const label = f('Energikarakter').toUpperCase();
  if (!/^[A-G]$/.test(label)) throw new RowError(`Energikarakter "${f('Energikarakter')}" is not an energy label A–G`);
  if (f('Utstedelsesdato') === '') throw new RowError('Utstedelsesdato is empty');
  const issued = registerTimestamp('Utstedelsesdato', f('Utstedelsesdato'));
  const assessment = f('EnergiVurderingDato');
  const unit = f('BruksEnhetsNummer').toUpperCase();
  return [
    certificateId,
    cadastreId,
    code('Bygningsnummer', f('Bygningsnummer'), /^\d{1,10}$/, 'a building number'),
    municipality,
    label,
    heatingGrade(f('Oppvarmingskarakter')),
    issued.date,
    issued.timestamp,
    f('GateAdresse') || null,
    postalCode(f('Postnummer')),
    f('Poststed') || null,
    code('BruksEnhetsNummer', unit, /^[HKLU]\d{4}$/, 'a unit number (H0101)'),
    code('Andelsnummer', f('Andelsnummer'), /^\d{1,6}$/, 'a share number'),
    organizationNumber(f('Organisasjonsnummer')),
    f('Bygningskategori') || null,
    constructionYear(f('Byggear')),
    f('TypeRegistrering') || null,
    decimal('BeregnetLevertEnergiTotaltkWhm2', f('BeregnetLevertEnergiTotaltkWhm2')),
    decimal('BeregnetFossilandel', f('BeregnetFossilandel')),
    f('Materialvalg') || null,
    yesNo('HarEnergiVurdering', f('HarEnergiVurdering')),
    assessment ? registerTimestamp('EnergiVurderingDato', assessment).date : null,
  ];
}

/**
 * Streams the file: the first record is the header; every later record becomes a row or a
 * reject with its line (the line a record ends on, when a quoted field holds a line break). A
 * repeated header line is skipped, so the yearly files can be concatenated into one national
 * snapshot. csv-parse (through `readDelimited`) does the quoting; a record it cannot read, such
 * as one with a stray quote, is rejected like any other bad row.
 */
export async function* readEnergyCsv(input: Readable, fileName: string): AsyncGenerator<ParsedRecord[]> {
  let index: ColumnIndex | undefined;
  let header = '';
  let width = 0;
  for await (const lines of readDelimited(utf8Text(input, fileName), { delimiter: ',', quote: '"' })) {
    const batch: ParsedRecord[] = [];
    for (const { line, fields, raw, error } of lines) {
      if (error !== undefined) {
        if (!index) throw new InputFormatError(`${fileName}: unreadable header line: ${error}`);
        batch.push({ kind: 'reject', position: line, reason: `unreadable CSV record: ${error}`, raw });
        continue;
      }
      if (!index) {
        index = indexHeader(fields, fileName);
        header = raw.replace(/^\uFEFF/, '');
        width = fields.length;
        continue;
      }
      // A concatenated year file repeats the header, with its own BOM when it had one.
      if (raw.replace(/^\uFEFF/, '') === header) continue;
      if (fields.length !== width) {
        batch.push({ kind: 'reject', position: line, reason: `row has ${fields.length} columns, the header has ${width}`, raw });
        continue;
      }
      try {
        batch.push({ kind: 'row', position: line, values: readRow(index, fields) });
      } catch (error) {
        if (!(error instanceof RowError || error instanceof CadastreIdError)) throw error;
        batch.push({ kind: 'reject', position: line, reason: error.message, raw });
      }
    }
    if (batch.length) yield batch;
  }
  if (!index) throw new InputFormatError(`${fileName} is empty: no header line`);
}
