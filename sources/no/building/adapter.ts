import type { CellValue, MergeResult, ParsedRecord, PublishScope, SourceAdapter, StagingContext } from '../../source-adapter.js';
import { readBygningElements, type BygningElement, type Fields } from '../../formats/bygning-gml.js';
import { degrees7 } from '../../geo/degrees.js';
import { SUPPORTED_SRIDS, UnknownCrsError, isLatitudeFirst, parseSrid, transformTo } from '../../geo/reproject.js';
import { countLiveRows, mergeTable, type TableMerge } from '../../publish/merge-table.js';
import { rewriteChildren, type ChildRewrite } from '../../publish/child-rows.js';
import { stepTimer } from '../../publish/step-timer.js';
import { BUILDING_TYPES, buildingStatusOf, buildingTypeCodeOf } from './codes.js';
import { CadastreIdError, formatCadastreId, normalizeMunicipality, unitFromParts } from '../cadastre-id.js';
import { nationalByFileName } from '../../input-scope.js';

/**
 * Kartverket Matrikkelen Bygning (bygningspunkt) GML: one point per building with its number,
 * type, status and status history, the matrikkelenheter it stands on and its bruksenheter
 * (each linked to an address and a matrikkelenhet). Publishes `building`,
 * `building_status_history` and `building_unit_link`.
 *
 * How the matrikkelenhet is identified: the file lists the building's matrikkelenheter as
 * `Matrikkelenhet` elements (kommunenummer, gardsnummer, bruksnummer, festenummer,
 * seksjonsnummer, and the register's internal `matrikkelenhetId`), the same parts the Teig GML
 * uses; a `Bruksenhet` names its unit by that `matrikkelenhetId`. The building's cadastre id is
 * its first whole unit (a section's building stands on the property the sections divide).
 */

/** Norway with Svalbard and Jan Mayen, generously: a point outside is a coordinate error. */
const LON_RANGE = [-10, 35];
const LAT_RANGE = [57, 82];
const BATCH = 500;

class RowError extends Error {}

const DATE = /^\d{4}-\d{2}-\d{2}/;

function parseBoolean(text: string | undefined, field: string): boolean | null {
  if (text === undefined || text === '') return null;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new RowError(`${field} "${text}" is not true or false`);
}

function dateOf(text: string | undefined, field: string): string | null {
  if (text === undefined || text === '') return null;
  if (!DATE.test(text) || Number.isNaN(Date.parse(text.slice(0, 10)))) throw new RowError(`${field} "${text}" is not a date`);
  return text.slice(0, 10);
}

interface Located { lon: number; lat: number; srid: number }

function locate(point: BygningElement['point']): Located {
  if (!point) throw new RowError('no representasjonspunkt (gml:Point/gml:pos)');
  let srid: number;
  try {
    srid = parseSrid(point.srsName);
  } catch (error) {
    if (error instanceof UnknownCrsError) throw new RowError(`unknown CRS: ${error.message}`);
    throw error;
  }
  if (!SUPPORTED_SRIDS.includes(srid)) throw new RowError(`unknown CRS: EPSG:${srid} (srsName "${point.srsName}") is not a supported coordinate reference system`);
  const parts = point.pos.split(/\s+/).filter(Boolean);
  const numbers = parts.map(Number);
  if ((numbers.length !== 2 && numbers.length !== 3) || numbers.some((n) => !Number.isFinite(n)) || parts.some((p) => !/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(p))) {
    throw new RowError(`bad coordinates "${point.pos}": expected two numbers`);
  }
  const [x, y] = isLatitudeFirst(point.srsName ?? '', srid) ? [numbers[1], numbers[0]] : [numbers[0], numbers[1]];
  const [lon, lat] = transformTo(srid)(x, y);
  if (!(lon >= LON_RANGE[0] && lon <= LON_RANGE[1] && lat >= LAT_RANGE[0] && lat <= LAT_RANGE[1])) {
    throw new RowError(`bad coordinates "${point.pos}" in EPSG:${srid}: outside Norway (lon ${lon.toFixed(5)}, lat ${lat.toFixed(5)})`);
  }
  return { lon, lat, srid };
}

interface UnitOfBuilding { matrikkelenhetId: string | null; cadastreId: string; seksjonsnummer: number }

function unitsOf(element: BygningElement): UnitOfBuilding[] {
  return element.matrikkelenheter.map((m, i) => {
    try {
      const unit = unitFromParts({
        kommunenummer: m.kommunenummer,
        gardsnummer: m.gardsnummer,
        bruksnummer: m.bruksnummer,
        festenummer: m.festenummer,
        seksjonsnummer: m.seksjonsnummer,
      });
      return { matrikkelenhetId: m.matrikkelenhetId || null, cadastreId: formatCadastreId(unit), seksjonsnummer: unit.seksjonsnummer };
    } catch (error) {
      if (error instanceof CadastreIdError) throw new RowError(`matrikkelenhet ${i + 1}: ${error.message}`);
      throw error;
    }
  });
}

/** The unit a building stands on: its first whole unit, or the property its first section divides. */
function standsOn(units: UnitOfBuilding[]): string | null {
  const whole = units.find((u) => u.seksjonsnummer === 0);
  if (whole) return whole.cadastreId;
  return units.length ? units[0].cadastreId.replace(/-\d+$/, '-0') : null;
}

function statusHistoryOf(element: BygningElement): { status: string; status_code: string; changed_date: string | null; registered_date: string | null }[] {
  return element.statusHistory.map((entry: Fields, i) => {
    const code = (entry.bygningsstatus ?? '').trim();
    const status = buildingStatusOf(code);
    if (!status) throw new RowError(`status history ${i + 1}: unknown bygningsstatus "${code}"`);
    return { status, status_code: code, changed_date: dateOf(entry.dato, 'status history dato'), registered_date: dateOf(entry.registrertDato, 'status history registrertDato') };
  });
}

function toRow(element: BygningElement): CellValue[] {
  const f = element.fields;
  const number = (f.bygningsnummer ?? '').trim();
  if (number === '') throw new RowError('missing bygningsnummer');
  if (!/^\d{1,12}$/.test(number)) throw new RowError(`bygningsnummer "${number}" is not a number`);
  const typeCode = buildingTypeCodeOf(f.bygningstype);
  if (typeCode === undefined) throw new RowError(`unknown bygningstype code "${f.bygningstype}"`);
  const statusCode = (f.bygningsstatus ?? '').trim();
  if (statusCode === '') throw new RowError('missing bygningsstatus');
  const status = buildingStatusOf(statusCode);
  if (!status) throw new RowError(`unknown bygningsstatus code "${statusCode}"`);
  let municipality: string;
  try {
    municipality = normalizeMunicipality(f.kommunenummer);
  } catch (error) {
    throw new RowError((error as Error).message);
  }
  const { lon, lat, srid } = locate(element.point);
  const units = unitsOf(element);
  const idToCadastre = new Map(units.filter((u) => u.matrikkelenhetId).map((u) => [u.matrikkelenhetId!, u.cadastreId]));
  const seen = new Set<string>();
  const links = element.bruksenheter.map((b, i) => {
    const id = (b.bruksenhetId ?? '').trim();
    if (!/^\d+$/.test(id)) throw new RowError(`bruksenhet ${i + 1}: bruksenhetId "${id}" is not a number`);
    if (seen.has(id)) throw new RowError(`bruksenhet ${i + 1}: bruksenhetId ${id} is listed twice`);
    seen.add(id);
    const matrikkelenhetId = b.matrikkelenhetId?.trim() || null;
    return {
      bruksenhet_id: id,
      address_id: b.adresseId?.trim() || null,
      matrikkelenhet_id: matrikkelenhetId,
      cadastre_id: matrikkelenhetId ? idToCadastre.get(matrikkelenhetId) ?? null : null,
    };
  });
  const updated = f.oppdateringsdato ? f.oppdateringsdato.trim() : null;
  if (updated !== null && Number.isNaN(Date.parse(updated))) throw new RowError(`oppdateringsdato "${updated}" is not a time`);
  return [
    number,
    f.lokalId?.trim() || f.bygningId?.trim() || null,
    municipality,
    standsOn(units),
    typeCode,
    typeCode === null ? null : BUILDING_TYPES.get(typeCode)!,
    status,
    statusCode,
    degrees7(lon),
    degrees7(lat),
    srid,
    parseBoolean(f.harKulturminne, 'harKulturminne'),
    parseBoolean(f.harSefrakminne, 'harSefrakminne'),
    updated,
    JSON.stringify(statusHistoryOf(element)),
    JSON.stringify(links),
  ];
}

export const BUILDING_STAGING_COLUMNS = [
  { name: 'building_id', type: 'text' },
  { name: 'register_id', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'building_type_code', type: 'text' },
  { name: 'building_type_name', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'status_code', type: 'text' },
  { name: 'lon', type: 'double precision' },
  { name: 'lat', type: 'double precision' },
  { name: 'source_srid', type: 'integer' },
  { name: 'has_cultural_heritage', type: 'boolean' },
  { name: 'is_sefrak_registered', type: 'boolean' },
  { name: 'source_updated_at', type: 'timestamp' },
  { name: 'status_history', type: 'jsonb' },
  { name: 'unit_links', type: 'jsonb' },
];

export async function* readBuildings(input: AsyncIterable<Buffer | string>): AsyncGenerator<ParsedRecord[]> {
  let batch: ParsedRecord[] = [];
  for await (const elements of readBygningElements(input)) {
    for (const element of elements) {
      try {
        batch.push({ kind: 'row', position: element.position, values: toRow(element) });
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        batch.push({ kind: 'reject', position: element.position, reason: error.message, raw: element.raw });
      }
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length) yield batch;
}

const POINT = 'ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326)';
const BUILDING_MERGE: TableMerge = {
  liveTable: 'building',
  keyColumn: 'building_id',
  columns: {
    building_number: 's.building_id',
    register_id: 's.register_id',
    cadastre_id: 's.cadastre_id',
    municipality_code: 's.municipality_code',
    building_type_code: 's.building_type_code',
    building_type_name: 's.building_type_name',
    status: 's.status',
    status_code: 's.status_code',
    geom: POINT,
    location: POINT,
    source_srid: 's.source_srid',
    has_cultural_heritage: 's.has_cultural_heritage',
    is_sefrak_registered: 's.is_sefrak_registered',
    source_updated_at: 's.source_updated_at',
  },
};

async function publishBuildings(context: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { client, stagingTable, runId, removedKeys } = context;
  const { timed, steps } = stepTimer();
  const buildings = await timed('building', () => mergeTable(client, stagingTable, BUILDING_MERGE, scope, runId, { timer: { timed, steps }, removedKeys }));
  // The children (status history, unit links) of the buildings this run wrote are rewritten; on a
  // night, those of its staged and removed buildings are reached by key.
  const rewrite: ChildRewrite = {
    country: scope.country,
    runId,
    ...(removedKeys ? { night: [`(SELECT building_id FROM ${stagingTable})`, removedKeys] } : {}),
  };
  const changed = `FROM ${stagingTable} s JOIN building b ON b.country = $1 AND b.building_id = s.building_id AND b.published_run_id = $2`;
  const history = await timed('building_status_history', () => rewriteChildren(
    client,
    { table: 'building_status_history', parent: 'building', key: ['building_id'] },
    rewrite,
    `INSERT INTO building_status_history (country, building_id, seq, status, status_code, changed_date, registered_date)
     SELECT $1, s.building_id, h.seq, h.entry->>'status', h.entry->>'status_code', (h.entry->>'changed_date')::date, (h.entry->>'registered_date')::date
     ${changed}
     CROSS JOIN LATERAL jsonb_array_elements(s.status_history) WITH ORDINALITY AS h(entry, seq)`,
  ));
  const links = await timed('building_unit_link', () => rewriteChildren(
    client,
    { table: 'building_unit_link', parent: 'building', key: ['building_id'] },
    rewrite,
    `INSERT INTO building_unit_link (country, building_id, bruksenhet_id, address_id, matrikkelenhet_id, cadastre_id)
     SELECT $1, s.building_id, l.entry->>'bruksenhet_id', l.entry->>'address_id', l.entry->>'matrikkelenhet_id', l.entry->>'cadastre_id'
     ${changed}
     CROSS JOIN LATERAL jsonb_array_elements(s.unit_links) AS l(entry)`,
  ));
  return { ...buildings, tables: { building: buildings, building_status_history: history, building_unit_link: links }, stepsMs: steps };
}

export const noBuilding: SourceAdapter = {
  id: 'no-building',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Kartverket Matrikkelen Bygning (bygningspunkt, GML)',
  docs: 'docs/sources/no-building.md',
  defaultInput: 'https://nedlasting.geonorge.no/geonorge/Basisdata/MatrikkelenBygning/GML/Basisdata_0000_Norge_25833_MatrikkelenBygning_GML.zip',
  inputFileName: 'Basisdata_0000_Norge_25833_MatrikkelenBygning_GML.zip',
  zipEntry: /\.gml$/i,
  stagingColumns: BUILDING_STAGING_COLUMNS,
  keyColumns: ['building_id'],
  parse: (input) => readBuildings(input),
  featureRecords: { element: 'Bygning' },
  countLive: (client, scope) => countLiveRows(client, 'building', scope),
  publish: publishBuildings,
};
