/**
 * The facts comparables and valuations weigh, one row per built property of a country, in a
 * table shared by the datasets of a derive run (`propertyFeatures`, derive/cached-inputs.ts) or
 * in a session temp table (`derive_property_features`, `createPropertyFeatures`):
 * - `size_m2`: Norway: the usable area (bruksareal) of the property's bruksenheter, or, for a
 *   property without any, of the buildings standing on it; Sweden: the main building's footprint.
 *   A property with no size (bare land, a section without a registered unit) gets no row: a
 *   price per m² means nothing for it, so it gets neither comparables nor a valuation.
 * - `building_type`: the main building's type (Norway: bygningstype code; Sweden: its first
 *   purpose, `Bostad;Småhus friliggande`), of the whole property for a section. Sweden flags the
 *   main building; in Norway it is the building holding the most bruksenhet area, else the largest;
 * - `built_year` (Norway, from the Matrikkel detail), `plot_m2` (its parcels), `property_type`;
 * - `segment`: the market segment of the valuation model, municipality group (county: the first
 *   two digits of the municipality code, fylke or län) × `segment_type` (Norway: the property
 *   type; Sweden, where every unit is a FASTIGHET: the main building's objekttyp);
 * - `model_class`: what the valuation model's size and plot effects are specific to: the segment
 *   type and the building type's first two digits in Norway (houses 11x, holiday homes 16x,
 *   offices 31x, ...; a section: its use, BOLIG or NAERING), the main building's purpose in Sweden;
 * - `geom`: a point in the country's metric CRS (the main building's point, else the parcel's
 *   point on surface), so `<->` and ST_Distance are metres.
 */
import type pg from 'pg';
import type { Country } from '../../lib/domain/country.js';
import type { DeriveContext } from '../dataset.js';
import { sharedTable, type SharedTable } from '../cached-inputs.js';

/** Metric CRS per country: ETRS89 / UTM 33N for Norway, SWEREF 99 TM for Sweden. */
export const METRIC_SRID: Record<Country, number> = { NO: 25833, SE: 3006 };

export const FEATURES_TABLE = 'derive_property_features';

/** The country's features as the datasets of a derive run share them: built by the first that asks. */
export function propertyFeatures({ client, country, shared }: Pick<DeriveContext, 'client' | 'country' | 'shared'>): Promise<SharedTable> {
  return sharedTable(client, country, shared, 'property_features', (table) => buildPropertyFeatures(client, country, `CREATE UNLOGGED TABLE ${table}`, table));
}

/** The country's features in this session's temp table pg_temp.derive_property_features (the evaluations' own computation). */
export async function createPropertyFeatures(client: pg.PoolClient, country: Country): Promise<number> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.${FEATURES_TABLE}`);
  return buildPropertyFeatures(client, country, `CREATE TEMP TABLE ${FEATURES_TABLE}`, `pg_temp.${FEATURES_TABLE}`);
}

async function buildPropertyFeatures(client: pg.PoolClient, country: Country, create: string, table: string): Promise<number> {
  const srid = METRIC_SRID[country];
  // Run in a pipeline session (no JIT, lib/db.ts: at a tenth of Norway JIT compiled this
  // statement's 177 functions for 8.5 s of its 29 s) with the derive activity's work_mem
  // (lib/bulk-settings.ts: its sorts spilled at 4 MB).
  const result = await client.query(
    `${create} AS
     WITH property_of AS (
       SELECT p.cadastre_id, p.property_type, p.municipality_code,
              -- A section's buildings and parcels are those of the property it divides.
              CASE WHEN p.property_type = 'EIERSEKSJON' THEN regexp_replace(p.cadastre_id, '-[0-9]+$', '-0') ELSE p.cadastre_id END AS stands_on
       FROM property p WHERE p.country = $1
     ),
     -- The usable area of each building's bruksenheter (Norway: the units the property is used as).
     building_units AS (
       SELECT building_number, sum(usable_area_m2) AS area FROM unit WHERE country = $1 AND building_number IS NOT NULL GROUP BY building_number
     ),
     -- Sorted by the ids' bytes (COLLATE "C"): the same groups, and under C.UTF-8 the same order, without strcoll.
     main_building AS (
       SELECT DISTINCT ON (b.cadastre_id COLLATE "C") b.cadastre_id,
              CASE WHEN b.country = 'SE' THEN coalesce(b.purposes[1], b.building_type_code) ELSE b.building_type_code END AS building_type,
              d.built_year, b.location
       FROM building b
       LEFT JOIN building_detail d ON d.country = b.country AND d.building_number = b.building_number
       LEFT JOIN building_units bu ON bu.building_number = b.building_number
       WHERE b.country = $1 AND b.cadastre_id IS NOT NULL
       -- Sweden marks the main building; Norway's registers do not, and there the building with
       -- the property's bruksenheter is what it is used as: a farmhouse, not its larger barn.
       ORDER BY b.cadastre_id COLLATE "C", b.is_main_building DESC NULLS LAST, bu.area DESC NULLS LAST, d.usable_area_m2 DESC NULLS LAST, b.footprint_m2 DESC NULLS LAST, b.building_id COLLATE "C"
     ),
     unit_area AS (
       SELECT cadastre_id, sum(usable_area_m2) AS area FROM unit WHERE country = $1 GROUP BY cadastre_id
     ),
     building_area AS (
       SELECT b.cadastre_id,
              sum(d.usable_area_m2) AS usable,
              sum(b.footprint_m2) FILTER (WHERE b.is_main_building) AS main_footprint
       FROM building b
       LEFT JOIN building_detail d ON d.country = b.country AND d.building_number = b.building_number
       WHERE b.country = $1 AND b.cadastre_id IS NOT NULL
       GROUP BY b.cadastre_id
     ),
     plot AS (
       SELECT pp.cadastre_id, sum(pa.area_m2) AS area,
              (array_agg(pa.geom ORDER BY pp.is_main_parcel DESC, pa.area_m2 DESC, pa.parcel_id))[1] AS geom
       FROM parcel_property pp JOIN parcel pa ON pa.country = pp.country AND pa.parcel_id = pp.parcel_id
       WHERE pp.country = $1
       GROUP BY pp.cadastre_id
     ),
     featured AS (
       SELECT po.cadastre_id, po.property_type, po.municipality_code, se.use_type AS section_use,
              CASE WHEN $1 = 'SE' THEN ba.main_footprint
                   WHEN ua.area > 0 THEN ua.area
                   WHEN po.property_type = 'EIERSEKSJON' THEN NULL
                   ELSE ba.usable END AS size_m2,
              mb.building_type, mb.built_year, pl.area AS plot_m2,
              coalesce(mb.location, ST_PointOnSurface(pl.geom)) AS location
       FROM property_of po
       LEFT JOIN unit_area ua ON ua.cadastre_id = po.cadastre_id
       LEFT JOIN building_area ba ON ba.cadastre_id = po.stands_on
       LEFT JOIN main_building mb ON mb.cadastre_id = po.stands_on
       LEFT JOIN plot pl ON pl.cadastre_id = po.stands_on
       LEFT JOIN section se ON se.country = $1 AND se.cadastre_id = po.cadastre_id
     )
     SELECT cadastre_id, property_type, municipality_code, size_m2, building_type, built_year, coalesce(plot_m2, 0) AS plot_m2,
            CASE WHEN $1 = 'SE' THEN coalesce(split_part(building_type, ';', 1), property_type) ELSE property_type END AS segment_type,
            left(municipality_code, 2) || ':' || CASE WHEN $1 = 'SE' THEN coalesce(split_part(building_type, ';', 1), property_type) ELSE property_type END AS segment,
            CASE WHEN $1 = 'SE' THEN coalesce(building_type, property_type) WHEN property_type = 'EIERSEKSJON' THEN 'EIERSEKSJON:' || coalesce(section_use, 'BOLIG')
                 ELSE property_type || ':' || coalesce(left(building_type, 2), '') END AS model_class,
            ST_Transform(location, ${srid})::geometry(Point, ${srid}) AS geom
     FROM featured
     WHERE size_m2 > 0 AND location IS NOT NULL`,
    [country],
  );
  await client.query(`CREATE UNIQUE INDEX ON ${table} (cadastre_id)`);
  await client.query(`ANALYZE ${table}`);
  return result.rowCount ?? 0;
}
