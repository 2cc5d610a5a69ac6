import type pg from 'pg';
import { visibleTo } from './visibility.js';
import { countryStatementOnce } from './country-statement.js';
import type { CallCount, CountRequest } from '../limits/call-counter.js';
import { countedStatement, countOfRow, countParameters } from '../limits/counted-read.js';
import { JSON_AS_TEXT } from './json-as-text.js';

/**
 * Properties by country and cadastre id, as the API's Property: what the parcels imply
 * (area, plots, location), what a register states (type, taxation value, established date),
 * counts and building totals, and the addresses. One statement for one id or a bulk of 100.
 */
export const PROPERTY_SQL = `
WITH known AS (
  SELECT DISTINCT ON (cadastre_id) country, cadastre_id, municipality_code, property_type
  FROM (
    SELECT country, cadastre_id, municipality_code, property_type FROM property WHERE country = $1 AND cadastre_id = ANY($2::text[])
    UNION ALL
    SELECT country, cadastre_id, municipality_code, property_type FROM property_register WHERE country = $1 AND cadastre_id = ANY($2::text[])
  ) found
  ORDER BY cadastre_id
)
SELECT p.cadastre_id, json_strip_nulls(json_build_object(
  'country', p.country,
  'cadastreId', p.cadastre_id,
  'municipality', json_build_object('code', coalesce(r.municipality_code, p.municipality_code), 'name', m.name),
  'areaM2', round(coalesce(r.area_m2, plots.area_m2)::numeric, 2)::float8,
  'plotCount', coalesce(r.plot_count, plots.plot_count),
  'propertyType', coalesce(r.property_type, p.property_type),
  'buildingCount', b.building_count,
  'sectionCount', s.section_count,
  'unitCount', u.unit_count,
  'totalUsableAreaM2', round(b.usable::numeric, 2)::float8,
  'totalGrossAreaM2', round(b.gross::numeric, 2)::float8,
  'builtOverAreaM2', round(b.built_over::numeric, 2)::float8,
  'builtOverAreaPct', round((b.built_over / nullif(coalesce(r.area_m2, plots.area_m2), 0) * 100)::numeric, 2)::float8,
  'averageFloors', round(b.avg_floors::numeric, 1)::float8,
  'taxationValue', api_money(r.taxation_value, r.taxation_currency),
  'establishedDate', api_date(r.established_date),
  'location', api_location(coalesce(plots.centre, b.centre)),
  'addresses', coalesce(addr.list, '[]')
)) AS property
FROM known p
LEFT JOIN property_register r ON r.country = p.country AND r.cadastre_id = p.cadastre_id
LEFT JOIN municipality m ON m.country = p.country AND m.code = coalesce(r.municipality_code, p.municipality_code)
LEFT JOIN LATERAL (
  SELECT sum(pa.area_m2) AS area_m2, nullif(count(*), 0)::int AS plot_count, ST_PointOnSurface(ST_Union(pa.geom)) AS centre
  FROM parcel_property pp JOIN parcel pa ON pa.country = pp.country AND pa.parcel_id = pp.parcel_id
  WHERE pp.country = p.country AND pp.cadastre_id = p.cadastre_id
) plots ON true
LEFT JOIN LATERAL (
  SELECT count(*)::int AS building_count, sum(d.usable_area_m2) AS usable, sum(d.gross_area_m2) AS gross,
         sum(coalesce(d.built_over_area_m2, bu.footprint_m2)) AS built_over, avg(d.floors) AS avg_floors,
         ST_Centroid(ST_Collect(bu.location)) AS centre
  FROM building bu LEFT JOIN building_detail d ON d.country = bu.country AND d.building_number = bu.building_number
  WHERE bu.country = p.country AND bu.cadastre_id = p.cadastre_id
) b ON true
LEFT JOIN LATERAL (SELECT count(*)::int AS section_count FROM section WHERE country = p.country AND property_cadastre_id = p.cadastre_id) s ON true
LEFT JOIN LATERAL (
  SELECT count(*)::int AS unit_count FROM unit
  WHERE country = p.country AND cadastre_id = ANY (ARRAY(SELECT p.cadastre_id UNION ALL SELECT cadastre_id FROM section WHERE country = p.country AND property_cadastre_id = p.cadastre_id))
) u ON true
LEFT JOIN LATERAL (
  SELECT json_agg(api_address(a) ORDER BY a.street_name, a.house_number, a.house_letter NULLS FIRST, a.address_id) AS list
  FROM address a WHERE a.country = p.country AND a.cadastre_id = p.cadastre_id
) addr ON true
WHERE ${visibleTo('$3', 'p.country', 'p.cadastre_id')}`;

export type PropertyJson = Record<string, unknown> & { cadastreId: string };

export async function fetchProperties(db: pg.Pool | pg.PoolClient, country: string, cadastreIds: string[], sandbox: boolean): Promise<Map<string, PropertyJson>> {
  // Named: prepared once per connection (planning it costs more than running it).
  const result = await db.query({ ...countryStatementOnce('api-properties', PROPERTY_SQL, country), values: [cadastreIds, sandbox] });
  return new Map(result.rows.map((row) => [row.cadastre_id, row.property]));
}

const COUNTED_PROPERTY_SQL = countedStatement(PROPERTY_SQL, 3);

/**
 * One property as the JSON text PostgreSQL rendered (without its links; api/store/json-as-text.ts),
 * the statement also counting the call (api/limits/counted-read.ts) when given `count`: what
 * GET /properties/{country}/{cadastreId} reads.
 */
export async function fetchPropertyJson(
  db: pg.Pool,
  country: string,
  cadastreId: string,
  sandbox: boolean,
  count?: CountRequest,
): Promise<{ property?: string; count?: CallCount }> {
  const result = count
    ? await db.query({ ...countryStatementOnce('api-property-counted', COUNTED_PROPERTY_SQL, country), values: [[cadastreId], sandbox, ...countParameters(count)], types: JSON_AS_TEXT })
    : await db.query({ ...countryStatementOnce('api-properties', PROPERTY_SQL, country), values: [[cadastreId], sandbox], types: JSON_AS_TEXT });
  // A counted statement always has one row: the property's columns are NULL when it was not found (or not visible).
  const row = result.rows[0];
  return { property: row?.property ?? undefined, ...(count ? { count: countOfRow(row, count) } : {}) };
}

/** True when the property exists in the served registers and the caller may see it. */
export async function propertyVisible(db: pg.Pool | pg.PoolClient, country: string, cadastreId: string, sandbox: boolean): Promise<boolean> {
  const result = await db.query({
    name: 'api-property-visible',
    text: `SELECT 1 FROM (
       SELECT 1 FROM parcel_property WHERE country = $1 AND cadastre_id = $2
       UNION ALL SELECT 1 FROM section WHERE country = $1 AND cadastre_id = $2
       UNION ALL SELECT 1 FROM property_register WHERE country = $1 AND cadastre_id = $2
       LIMIT 1) found
     WHERE ${visibleTo('$3', '$1::text', '$2::text')}`,
    values: [country, cadastreId, sandbox],
  });
  return result.rowCount === 1;
}
