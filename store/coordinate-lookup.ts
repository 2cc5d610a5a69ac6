import type pg from 'pg';
import { polygonCoversPointSql } from '../lib/point-probe-sql.js';

/**
 * WGS84 point → the parcel covering it, its property and the property's addresses. Written
 * for the API's `/coordinates/{country}/{lat}/{lon}` too: one round trip, index-driven.
 *
 * `ST_Covers` (not `ST_Contains`) so a point on a boundary resolves; where two parcels cover it
 * (a shared boundary, or a leasehold inside its parent), the smallest parcel wins, then the
 * lowest parcel id: the same answer every time. Addresses carry their location as the API writes
 * it (api_location: 7 decimals, about a centimetre).
 */

export interface LookupAddress {
  text: string;
  streetName: string | null;
  houseNumber: string | null;
  postalCode: string | null;
  postalPlace: string | null;
  country: string;
  cadastreId: string | null;
  location: { lat: number; lon: number };
}

export interface LookupResult {
  parcel?: { parcelId: string; areaM2: number; cadastreIds: string[] };
  property?: {
    country: string;
    cadastreId: string;
    municipality: { code: string; name: string | null };
    areaM2: number;
    plotCount: number;
    propertyType: string;
    location: { lat: number; lon: number };
    addresses: LookupAddress[];
  };
  addresses: LookupAddress[];
}

export const LOOKUP_SQL = `
WITH hit AS (
  SELECT p.country, p.parcel_id, p.area_m2
  FROM parcel p
  WHERE p.country = $1 AND ${polygonCoversPointSql('p.geom', 'ST_SetSRID(ST_MakePoint($3, $2), 4326)')}
  ORDER BY p.area_m2, p.parcel_id
  LIMIT 1
),
unit AS (
  SELECT pp.cadastre_id, array_agg(pp.cadastre_id) OVER () AS all_ids
  FROM hit JOIN parcel_property pp ON pp.country = hit.country AND pp.parcel_id = hit.parcel_id
  ORDER BY pp.is_main_parcel DESC, pp.cadastre_id
  LIMIT 1
)
SELECT hit.parcel_id, hit.area_m2 AS parcel_area_m2, unit.all_ids,
       unit.cadastre_id, cadastre_municipality(unit.cadastre_id) AS municipality_code, m.name AS municipality_name,
       property_type(unit.cadastre_id) AS property_type,
       plots.area_m2, plots.plot_count,
       ST_Y(plots.centre) AS lat, ST_X(plots.centre) AS lon,
       coalesce((
         SELECT json_agg(json_build_object(
                  'text', a.address_text, 'streetName', a.street_name,
                  'houseNumber', a.house_number::text || coalesce(a.house_letter, ''),
                  'postalCode', a.postal_code, 'postalPlace', a.postal_place, 'country', a.country,
                  'cadastreId', a.cadastre_id, 'location', api_location(a.geom))
                ORDER BY a.street_name, a.house_number, a.house_letter, a.address_id)
         FROM address a WHERE a.country = hit.country AND a.cadastre_id = unit.cadastre_id), '[]') AS addresses
FROM hit
LEFT JOIN unit ON true
LEFT JOIN municipality m ON m.country = hit.country AND m.code = cadastre_municipality(unit.cadastre_id)
LEFT JOIN LATERAL (
  SELECT sum(p2.area_m2) AS area_m2, count(*)::int AS plot_count, ST_PointOnSurface(ST_Union(p2.geom)) AS centre
  FROM parcel_property pp2 JOIN parcel p2 ON p2.country = pp2.country AND p2.parcel_id = pp2.parcel_id
  WHERE pp2.country = hit.country AND pp2.cadastre_id = unit.cadastre_id
) plots ON true`;

export function validateCoordinate(lat: number, lon: number): void {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw new RangeError(`lat ${lat} is not a latitude between -90 and 90`);
  if (!Number.isFinite(lon) || lon < -180 || lon > 180) throw new RangeError(`lon ${lon} is not a longitude between -180 and 180`);
}

export async function lookupCoordinate(db: pg.Pool | pg.PoolClient, country: string, lat: number, lon: number): Promise<LookupResult> {
  validateCoordinate(lat, lon);
  // Named: prepared once per connection; planning this statement costs several times running it.
  const result = await db.query({ name: 'coordinate-lookup', text: LOOKUP_SQL, values: [country, lat, lon] });
  return lookupResultOf(country, result.rows[0]);
}

/** A row of LOOKUP_SQL (or of a statement selecting `l.*` from it) as a LookupResult. */
export function lookupResultOf(country: string, row: Record<string, any> | undefined): LookupResult {
  if (!row) return { addresses: [] };
  const parcel = { parcelId: row.parcel_id, areaM2: round2(row.parcel_area_m2), cadastreIds: row.all_ids ?? [] };
  if (!row.cadastre_id) return { parcel, addresses: [] };
  const addresses = row.addresses as LookupAddress[];
  return {
    parcel,
    property: {
      country,
      cadastreId: row.cadastre_id,
      municipality: { code: row.municipality_code, name: row.municipality_name },
      areaM2: round2(row.area_m2),
      plotCount: row.plot_count,
      propertyType: row.property_type,
      location: { lat: row.lat, lon: row.lon },
      addresses,
    },
    addresses,
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
