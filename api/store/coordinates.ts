import type pg from 'pg';
import { JSON_AS_TEXT } from './json-as-text.js';
import { LOOKUP_SQL, validateCoordinate } from '../../store/coordinate-lookup.js';
import { BUILDING_ORDER, buildingJson, buildingsOf } from './buildings.js';
import { propertyVisible } from './property.js';
import { countryStatementOnce } from './country-statement.js';
import type { CallCount, CountRequest } from '../limits/call-counter.js';
import { countedStatement, countOfRow, countParameters } from '../limits/counted-read.js';

/**
 * The coordinate answer's parts as JSON text, rendered by PostgreSQL as the API writes them (no
 * nulls, locations to 7 decimals, areas to 2): the property without its links (NULL outside
 * every property), its buildings and its addresses.
 */
export interface CoordinateAnswerText {
  cadastreId?: string;
  property?: string;
  buildings: string;
  addresses: string;
}

/**
 * The store's coordinate lookup (parcel covering the point, its property and addresses) with the
 * property's buildings (the subset the coordinate response carries), in one statement: the
 * endpoint is the hot path, and each round trip is a large share of its time. The statement
 * renders the answer's JSON too, and the driver hands it over as text (JSON_AS_TEXT).
 */
export const COORDINATE_SQL = `
SELECT l.cadastre_id,
       CASE WHEN l.cadastre_id IS NOT NULL THEN json_strip_nulls(json_build_object(
         'country', $1::text, 'cadastreId', l.cadastre_id,
         'municipality', json_build_object('code', l.municipality_code, 'name', l.municipality_name),
         'areaM2', round(l.area_m2::numeric, 2)::float8, 'plotCount', l.plot_count, 'propertyType', l.property_type,
         'location', api_lat_lon(l.lat, l.lon), 'addresses', l.addresses)) END AS property,
       coalesce((SELECT json_agg(${buildingJson(false)} ORDER BY ${BUILDING_ORDER}) ${buildingsOf('$1::text', 'l.cadastre_id')}), '[]') AS buildings,
       CASE WHEN l.cadastre_id IS NOT NULL THEN json_strip_nulls(l.addresses) ELSE '[]' END AS addresses
FROM (${LOOKUP_SQL}) l`;

const COUNTED_COORDINATE_SQL = countedStatement(COORDINATE_SQL, 3);

const NOTHING: CoordinateAnswerText = { buildings: '[]', addresses: '[]' };

/**
 * Outside every parcel, or on a property a sandbox may not see: no property, empty arrays.
 * With `count`, the statement also counts the call (api/limits/counted-read.ts), and the
 * answer carries that count.
 */
export async function resolveCoordinate(
  db: pg.Pool,
  country: string,
  lat: number,
  lon: number,
  sandbox: boolean,
  count?: CountRequest,
): Promise<CoordinateAnswerText & { count?: CallCount }> {
  validateCoordinate(lat, lon);
  const result = count
    ? await db.query({ ...countryStatementOnce('api-coordinates-counted', COUNTED_COORDINATE_SQL, country), values: [lat, lon, ...countParameters(count)], types: JSON_AS_TEXT })
    : await db.query({ ...countryStatementOnce('api-coordinates', COORDINATE_SQL, country), values: [lat, lon], types: JSON_AS_TEXT });
  // A counted statement always has its one row; the lookup's columns are NULL when nothing covers the point.
  const row = result.rows[0];
  const counted = count ? { count: countOfRow(row, count) } : {};
  const cadastreId: string | null | undefined = row?.cadastre_id;
  if (!cadastreId || (sandbox && !(await propertyVisible(db, country, cadastreId, true)))) return { ...NOTHING, ...counted };
  return { cadastreId, property: row.property, buildings: row.buildings, addresses: row.addresses, ...counted };
}
