import type { Readable } from 'node:stream';
import { normalizeMunicipality, unitFromParts, formatCadastreId, CadastreIdError } from '../cadastre-id.js';
import { transformTo, UnknownCrsError, type PointTransform } from '../../geo/reproject.js';
import { degrees7 } from '../../geo/degrees.js';
import { InputFormatError } from '../../formats/input-error.js';
import { readUnquotedLines } from '../../formats/unquoted-csv.js';
import type { CellValue, ParsedRecord } from '../../source-adapter.js';

/**
 * Kartverket Matrikkelen Adresse CSV: `;`-separated, no quoting, Nord before Øst, CRS per row
 * in `EPSG-kode`. Three layouts are in circulation (32, 37 and 46 columns); columns are
 * found by header name, case-insensitively, so all three read alike.
 */

const REQUIRED = ['lokalid', 'kommunenummer', 'adressetype', 'gardsnummer', 'bruksnummer', 'adressetekst', 'epsg-kode', 'nord', 'øst'] as const;
const OPTIONAL = ['kommunenavn', 'adressekode', 'adressenavn', 'nummer', 'bokstav', 'festenummer', 'undernummer', 'postnummer', 'poststed', 'oppdateringsdato'] as const;
type Column = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number];

export const ADDRESS_STAGING_COLUMNS = [
  { name: 'address_id', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'municipality_name', type: 'text' },
  { name: 'address_type', type: 'text' },
  { name: 'street_code', type: 'text' },
  { name: 'street_name', type: 'text' },
  { name: 'house_number', type: 'integer' },
  { name: 'house_letter', type: 'text' },
  { name: 'sub_number', type: 'integer' },
  { name: 'address_text', type: 'text' },
  { name: 'postal_code', type: 'text' },
  { name: 'postal_place', type: 'text' },
  { name: 'lon', type: 'double precision' },
  { name: 'lat', type: 'double precision' },
  { name: 'source_srid', type: 'integer' },
  { name: 'source_updated_at', type: 'timestamp' },
];

// Norway with Svalbard and Jan Mayen, generously: a point outside is a coordinate error.
const LON_RANGE = [-10, 35];
const LAT_RANGE = [57, 82];

class RowError extends Error {}

type ColumnIndex = Record<Column, number>;

function indexHeader(header: string[]): ColumnIndex {
  const positions = new Map(header.map((name, i) => [name.trim().toLowerCase(), i]));
  const missing = REQUIRED.filter((name) => !positions.has(name));
  if (missing.length) {
    throw new InputFormatError(
      `unknown header: missing column(s) ${missing.join(', ')}; expected a Matrikkelen Adresse CSV (32, 37 or 46 columns, ';'-separated), got: ${header.slice(0, 8).join(';')}…`,
    );
  }
  const index = {} as ColumnIndex;
  for (const name of [...REQUIRED, ...OPTIONAL]) index[name] = positions.get(name) ?? -1;
  return index;
}

function optionalInt(field: string, text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  if (!/^\d{1,6}$/.test(text)) throw new RowError(`${field} "${text}" is not a whole number`);
  return Number(text);
}

function coordinate(field: string, text: string | undefined): number {
  const value = text === undefined || text === '' ? NaN : Number(text);
  if (!Number.isFinite(value)) throw new RowError(`${field} "${text ?? ''}" is not a coordinate`);
  return value;
}

/** `15.06.2020 17:37:59` → `2020-06-15 17:37:59`. */
function registerTimestamp(text: string | undefined): string | null {
  if (!text) return null;
  const match = /^(\d{2})\.(\d{2})\.(\d{4})(?: (\d{2}):(\d{2}):(\d{2}))?$/.exec(text);
  if (!match) throw new RowError(`oppdateringsdato "${text}" is not dd.MM.yyyy HH:mm:ss`);
  const [, d, m, y, hh = '00', mm = '00', ss = '00'] = match;
  return `${y}-${m}-${d} ${hh}:${mm}:${ss}`;
}


export class AddressRowReader {
  private readonly transforms = new Map<number, PointTransform>();
  constructor(private readonly index: ColumnIndex) {}

  static fromHeader(header: string[]): AddressRowReader {
    return new AddressRowReader(indexHeader(header));
  }

  private field(cells: string[], column: Column): string | undefined {
    const i = this.index[column];
    if (i < 0) return undefined;
    const value = cells[i];
    return value === undefined ? undefined : value.trim();
  }

  private transform(srid: number): PointTransform {
    let transform = this.transforms.get(srid);
    if (!transform) {
      transform = transformTo(srid);
      this.transforms.set(srid, transform);
    }
    return transform;
  }

  /** Normalizes one data row into staging values, or throws RowError with the reason. */
  read(cells: string[]): CellValue[] {
    const f = (column: Column) => this.field(cells, column);
    const lokalid = f('lokalid');
    if (!lokalid || !/^\d+$/.test(lokalid)) throw new RowError(`lokalid "${lokalid ?? ''}" is not a register id`);
    const municipality = normalizeMunicipality(f('kommunenummer'));
    const unit = unitFromParts({
      kommunenummer: municipality,
      gardsnummer: f('gardsnummer'),
      bruksnummer: f('bruksnummer'),
      festenummer: f('festenummer'),
    });

    const sridText = f('epsg-kode') ?? '';
    if (!/^\d{4,5}$/.test(sridText)) throw new RowError(`EPSG-kode "${sridText}" is not an EPSG code`);
    const srid = Number(sridText);
    const north = coordinate('Nord', f('nord'));
    const east = coordinate('Øst', f('øst'));
    if (srid !== 4258 && srid !== 4326 && north < east) {
      throw new RowError(`Nord ${north} is smaller than Øst ${east}: the coordinates look swapped`);
    }
    const [lon, lat] = this.transform(srid)(east, north);
    if (!(lon >= LON_RANGE[0] && lon <= LON_RANGE[1] && lat >= LAT_RANGE[0] && lat <= LAT_RANGE[1])) {
      throw new RowError(`Nord ${north} Øst ${east} in EPSG:${srid} lies outside Norway (lon ${lon.toFixed(5)}, lat ${lat.toFixed(5)})`);
    }

    const text = f('adressetekst');
    if (!text) throw new RowError('adresseTekst is empty');
    const number = optionalInt('nummer', f('nummer'));
    const postal = f('postnummer');
    if (postal && !/^\d{3,4}$/.test(postal)) throw new RowError(`postnummer "${postal}" is not a postal code`);

    return [
      lokalid,
      formatCadastreId(unit),
      municipality,
      f('kommunenavn') || null,
      f('adressetype') || null,
      f('adressekode') || null,
      f('adressenavn') || null,
      number,
      f('bokstav') || null,
      optionalInt('undernummer', f('undernummer')),
      text,
      postal ? postal.padStart(4, '0') : null,
      f('poststed') || null,
      degrees7(lon),
      degrees7(lat),
      srid,
      registerTimestamp(f('oppdateringsdato')),
    ];
  }
}

function isRowProblem(error: unknown): error is Error {
  return error instanceof RowError || error instanceof CadastreIdError || error instanceof UnknownCrsError;
}

/** Streams the CSV: the first line is the header; every later line becomes a row or a reject with its line number. */
export async function* readAddressCsv(input: Readable, fileName: string): AsyncGenerator<ParsedRecord[]> {
  let reader: AddressRowReader | undefined;
  let width = 0;
  for await (const lines of readUnquotedLines(input, { delimiter: ';', label: fileName })) {
    const records: ParsedRecord[] = [];
    for (const { number: position, fields, text } of lines) {
      if (!reader) {
        if (fields[0].charCodeAt(0) === 0xfeff) fields[0] = fields[0].slice(1);
        reader = AddressRowReader.fromHeader(fields);
        width = fields.length;
        continue;
      }
      if (fields.length !== width) {
        records.push({ kind: 'reject', position, reason: `row has ${fields.length} columns, the header has ${width}`, raw: text });
        continue;
      }
      try {
        records.push({ kind: 'row', position, values: reader.read(fields) });
      } catch (error) {
        if (!isRowProblem(error)) throw error;
        records.push({ kind: 'reject', position, reason: error.message, raw: text });
      }
    }
    if (records.length) yield records;
  }
  if (!reader) throw new InputFormatError(`${fileName} is empty: no header line`);
}
