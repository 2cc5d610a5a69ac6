import type { CellValue } from '../../source-adapter.js';
import { RecordError } from '../../formats/json-lines.js';
import { transformTo } from '../../geo/reproject.js';
import { areaValues } from './staging.js';
import { RegisterValueError, swedishPostalCode } from '../register-value.js';

/** Postal code areas and land allocations of `se-area` (municipalities: municipality-boundaries.ts). */

export const POSTAL_REQUIRED = ['postnummer', 'postort', 'kommunkod'] as const;
export type PostalColumn = (typeof POSTAL_REQUIRED)[number];

/** A postal code area as a list entry (no boundary is openly published for Swedish postcodes). */
export function postalCodeValues(field: (column: PostalColumn) => string | undefined): CellValue[] {
  const code = swedishPostalCode('postnummer', field('postnummer'));
  if (!code) throw new RegisterValueError('postnummer is empty');
  const municipality = field('kommunkod')?.trim() ?? '';
  if (!/^\d{4}$/.test(municipality)) throw new RegisterValueError(`kommunkod "${municipality}" is not four digits`);
  const place = field('postort')?.trim();
  if (!place) throw new RegisterValueError('postort is empty');
  return areaValues('POSTAL_CODE', { record_key: code, municipality_code: municipality, name: place });
}

const STATUS: Record<string, string> = { Planerad: 'PLANNED', Utlyst: 'ANNOUNCED', 'Under utvärdering': 'IN_PROGRESS', Anvisad: 'ALLOCATED', Avslutad: 'CLOSED' };
/** Sweden, generously, in longitude and latitude: catches a swapped axis or the wrong CRS. */
const SWEDEN = { west: 10, east: 24.5, south: 55, north: 69.5 };

export interface LandAllocationRecord {
  markanvisningId: string;
  kommunkod: string;
  titel: string;
  syfte?: string;
  status: string;
  arealKvm?: number;
  pris?: { belopp: number; valuta: string };
  publicerad?: string;
  sistaAnmalningsdag?: string;
  url?: string;
  postnummer?: string;
  koordinatsystem?: 'EPSG:4326' | 'EPSG:3006';
  geometri?: { type: 'Point' | 'Polygon' | 'MultiPolygon'; coordinates: unknown };
}

/** Every position of a GeoJSON Point, Polygon or MultiPolygon, with rings checked for closure. */
function checkPositions(geometry: NonNullable<LandAllocationRecord['geometri']>, srid: number): void {
  const toWgs84 = transformTo(srid);
  const position = (p: unknown, where: string) => {
    if (!Array.isArray(p) || p.length < 2 || !p.slice(0, 2).every((c) => typeof c === 'number' && Number.isFinite(c))) throw new RecordError(`geometri ${where} is not a pair of numbers: ${JSON.stringify(p)}`);
    const [lon, lat] = toWgs84(p[0] as number, p[1] as number);
    if (!(lon >= SWEDEN.west && lon <= SWEDEN.east && lat >= SWEDEN.south && lat <= SWEDEN.north)) {
      throw new RecordError(`geometri ${where} lies outside Sweden in ${srid === 4326 ? 'EPSG:4326' : `EPSG:${srid}`} (${lon.toFixed(4)}, ${lat.toFixed(4)}): wrong koordinatsystem or axis order?`);
    }
  };
  const ring = (r: unknown, where: string) => {
    if (!Array.isArray(r) || r.length < 4) throw new RecordError(`geometri ${where} is not a ring of at least 4 positions`);
    r.forEach((p, i) => position(p, `${where} position ${i}`));
    if (JSON.stringify(r[0]) !== JSON.stringify(r[r.length - 1])) throw new RecordError(`geometri ${where} is not closed`);
  };
  const polygon = (rings: unknown, where: string) => {
    if (!Array.isArray(rings) || !rings.length) throw new RecordError(`geometri ${where} has no rings`);
    rings.forEach((r, i) => ring(r, `${where} ring ${i}`));
  };
  const { type, coordinates } = geometry;
  if (type === 'Point') position(coordinates, 'point');
  else if (type === 'Polygon') polygon(coordinates, 'polygon');
  else if (Array.isArray(coordinates)) coordinates.forEach((p, i) => polygon(p, `polygon ${i}`));
}

export function landAllocationValues(record: LandAllocationRecord): CellValue[] {
  let postal: string | null;
  try {
    postal = swedishPostalCode('postnummer', record.postnummer);
  } catch (error) {
    if (error instanceof RegisterValueError) throw new RecordError(error.message);
    throw error;
  }
  if (record.publicerad && record.sistaAnmalningsdag && record.sistaAnmalningsdag < record.publicerad) {
    throw new RecordError(`sistaAnmalningsdag ${record.sistaAnmalningsdag} is before publicerad ${record.publicerad}`);
  }
  const srid = record.koordinatsystem === 'EPSG:3006' ? 3006 : 4326;
  if (record.geometri) checkPositions(record.geometri, srid);
  return areaValues('LAND_ALLOCATION', {
    record_key: `${record.kommunkod}-${record.markanvisningId}`,
    municipality_code: record.kommunkod,
    name: record.titel,
    geojson: record.geometri ? JSON.stringify(record.geometri) : null,
    geojson_srid: record.geometri ? srid : null,
    area_m2: record.arealKvm ?? null,
    postal_code: postal,
    purpose: record.syfte?.trim() || null,
    status: STATUS[record.status],
    price_amount: record.pris?.belopp ?? null,
    price_currency: record.pris?.valuta ?? null,
    announced_date: record.publicerad ?? null,
    deadline_date: record.sistaAnmalningsdag ?? null,
    url: record.url ?? null,
    source_ref: record.markanvisningId,
  });
}
