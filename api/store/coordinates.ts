import type pg from 'pg';
import { LOOKUP_SQL, lookupResultOf, validateCoordinate } from '../../store/coordinate-lookup.js';
import { BUILDING_ORDER, buildingJson, buildingsOf } from './buildings.js';
import { propertyVisible } from './property.js';
import { countryStatementOnce } from './country-statement.js';
import type { CallCount, CountRequest } from '../limits/call-counter.js';
import { countedStatement, countOfRow, countParameters } from '../limits/counted-read.js';

export interface CoordinateAnswer {
  property?: Record<string, unknown>;
  buildings: unknown[];
  addresses: unknown[];
}

/**
 * The store's coordinate lookup (parcel covering the point, its property and addresses) with the
 * property's buildings (the subset the coordinate response carries), in one statement: the
 * endpoint is the hot path, and each round trip is a large share of its time.
 */
export const COORDINATE_SQL = `
SELECT l.*, coalesce((SELECT json_agg(${buildingJson(false)} ORDER BY ${BUILDING_ORDER}) ${buildingsOf('$1::text', 'l.cadastre_id')}), '[]') AS buildings
FROM (${LOOKUP_SQL}) l`;

const COUNTED_COORDINATE_SQL = countedStatement(COORDINATE_SQL, 3);

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
): Promise<CoordinateAnswer & { count?: CallCount }> {
  validateCoordinate(lat, lon);
  const result = count
    ? await db.query({ ...countryStatementOnce('api-coordinates-counted', COUNTED_COORDINATE_SQL, country), values: [lat, lon, ...countParameters(count)] })
    : await db.query({ ...countryStatementOnce('api-coordinates', COORDINATE_SQL, country), values: [lat, lon] });
  const row = result.rows[0];
  const counted = count ? { count: countOfRow(row, count) } : {};
  // A counted statement always has its one row; the lookup's columns are NULL when nothing covers the point.
  const found = lookupResultOf(country, row?.parcel_id == null ? undefined : row);
  const property = found.property;
  if (!property || (sandbox && !(await propertyVisible(db, country, property.cadastreId, true)))) return { buildings: [], addresses: [], ...counted };
  const addresses = property.addresses.map((address) => withRoundedLocation(withoutNulls(address)));
  return { property: { ...withRoundedLocation(withoutNulls(property)), addresses }, buildings: row.buildings, addresses, ...counted };
}

/**
 * The store's lookup gives full double precision; the API writes every location as
 * api_location does (schema/1763800700000_api.sql): 7 decimals, about a centimetre.
 */
function withRoundedLocation(value: Record<string, unknown>): Record<string, unknown> {
  const location = value.location as { lat: number; lon: number } | undefined;
  return location ? { ...value, location: { lat: round7(location.lat), lon: round7(location.lon) } } : value;
}

const round7 = (degrees: number) => Number(degrees.toFixed(7));

/** The lookup keeps SQL NULLs; the API omits absent fields. */
function withoutNulls<T extends object>(value: T): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? withoutNulls(v) : v]),
  );
}
