import type pg from 'pg';
import type { Country } from '../../lib/domain/country.js';
import { countRows, sharedTable, type SharedInputs, type SharedTable } from '../cached-inputs.js';
import { codeFingerprint } from '../inputs-fingerprint.js';

/**
 * A plan must cover at least this share of the plot to count: parcels and plans drawn on the
 * same boundary touch along it, and a digitizing sliver is no zoning.
 */
const MIN_OVERLAP_SHARE = 0.01;

/**
 * The step both countries' utilization shares: for one country, the temp tables
 * `utilization_overlap` (m² of each property's plot under each adopted plan),
 * `utilization_plot` (each such property's plot area) and `utilization_plan` (per property, the
 * adopted plan covering most of its plot: plan_municipality_code, plan_id, overlap_m2,
 * plot_area_m2), dropped at commit. Set-based, from the parcels' overlaps with the plans
 * (`planOverlaps`). Returns how the overlaps were had, for the ledger.
 */
export async function stagePlanOverlaps(client: pg.PoolClient, country: Country, shared: SharedInputs): Promise<{ parcelOverlaps: string }> {
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  // For this transaction only (JIT and work_mem are the derive activity's, lib/bulk-settings.ts):
  // text sorts for merge joins go through strcoll under the database's C.UTF-8 collation, hash
  // joins do not.
  await q(`SET LOCAL enable_mergejoin = off`);
  const overlaps = await planOverlaps(client, country, shared);
  await q(
    `CREATE TEMP TABLE utilization_overlap ON COMMIT DROP AS
     -- Kept as numeric and summed exactly: the kept table's row order changes from run to run,
     -- and a float sum of three parcels or more in another order may differ in its last bit.
     SELECT pp.cadastre_id, o.plan_municipality_code, o.plan_id, sum(o.overlap_m2)::float8 AS overlap_m2
     FROM ${overlaps.table.table} o
     JOIN parcel_property pp ON pp.country = $1 AND pp.parcel_id = o.parcel_id
     WHERE o.plan_id IS NOT NULL
     GROUP BY pp.cadastre_id, o.plan_municipality_code, o.plan_id`,
    [country],
  );
  await q(`ANALYZE utilization_overlap`);
  await q(
    `CREATE TEMP TABLE utilization_plot ON COMMIT DROP AS
     SELECT pp.cadastre_id, sum(p.area_m2) AS plot_area_m2
     FROM parcel_property pp JOIN parcel p ON p.country = pp.country AND p.parcel_id = pp.parcel_id
     WHERE pp.country = $1 AND pp.cadastre_id IN (SELECT cadastre_id FROM utilization_overlap)
     GROUP BY pp.cadastre_id`,
    [country],
  );
  // The plan covering most of the plot, at least MIN_OVERLAP_SHARE of it; on a tie the newest.
  await q(
    `CREATE TEMP TABLE utilization_plan ON COMMIT DROP AS
     -- Byte order groups the same properties as the database's collation, without strcoll.
     SELECT DISTINCT ON (o.cadastre_id COLLATE "C") o.cadastre_id, o.plan_municipality_code, o.plan_id, o.overlap_m2, pl.plot_area_m2
     FROM utilization_overlap o
     JOIN utilization_plot pl USING (cadastre_id)
     JOIN zoning_plan z ON z.country = $1 AND z.municipality_code = o.plan_municipality_code AND z.plan_id = o.plan_id
     WHERE o.overlap_m2 >= $2 * pl.plot_area_m2
     ORDER BY o.cadastre_id COLLATE "C", o.overlap_m2 DESC, z.adopted_date DESC NULLS LAST, o.plan_id`,
    [country, MIN_OVERLAP_SHARE],
  );
  await q(`ANALYZE utilization_plan`);
  return { parcelOverlaps: overlaps.table.reused ? `updated (${overlaps.recomputed} parcels recomputed)` : 'built' };
}

/**
 * The overlap in m² of every parcel of the country with every adopted plan it intersects, one row
 * per pair (numeric: see the sum above), and one row without a plan for a parcel that intersects
 * none. Built pair by pair while the spatial join visits one plan's parcels after another. A
 * parcel inside the plan (the common case) is not intersected at all; that test is ST_Covers with
 * the plan first (the same relation as ST_CoveredBy(parcel, plan)) so PostGIS prepares the plan's
 * geometry once for all its parcels.
 *
 * Kept across runs in derive_cache (derive/cached-inputs.ts): it was the largest statement of
 * utilization (2.8 to 3.1 s a country at 0.05 × national), and a night changes about 2 % of the
 * parcels and no plan. Each row names the parcel's row_hash; a run removes the rows of parcels
 * gone or changed since and computes those parcels again, against the plans from their GiST
 * index. The table is built again when the adopted plans (their keys and geometries, hashed),
 * the schema or the derive code changed, by `nordprop derive`, and after a crash emptied it. The
 * computation reads one snapshot (activities/derive.ts), so the parcels the update follows are
 * those the rest of it reads, whatever publishes meanwhile.
 */
async function planOverlaps(client: pg.PoolClient, country: Country, shared: SharedInputs): Promise<{ table: SharedTable; recomputed: number }> {
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  const plans = await q(
    `SELECT md5(coalesce(string_agg(municipality_code || '/' || plan_id || '/' || md5(ST_AsEWKB(geom)), ',' ORDER BY municipality_code, plan_id), '')) AS digest
     FROM zoning_plan WHERE country = $1 AND status = 'ADOPTED'`,
    [country],
  );
  const overlap = (parcel: string) => `CASE WHEN ST_Covers(z.geom, ${parcel}.geom) THEN ${parcel}.area_m2
                                             ELSE ST_Area(ST_Intersection(${parcel}.geom, z.geom)::geography) END`;
  let recomputed = 0;
  const table = await sharedTable(
    client,
    country,
    shared,
    'utilization_pair',
    async (name) => {
      await q(
        `CREATE UNLOGGED TABLE ${name} AS
         SELECT p.parcel_id, p.row_hash, z.municipality_code AS plan_municipality_code, z.plan_id, (${overlap('p')})::numeric AS overlap_m2
         FROM zoning_plan z
         JOIN parcel p ON p.country = z.country AND z.geom && p.geom AND ST_Intersects(z.geom, p.geom)
         WHERE z.country = $1 AND z.status = 'ADOPTED'`,
        [country],
      );
      await q(
        `INSERT INTO ${name} (parcel_id, row_hash)
         SELECT p.parcel_id, p.row_hash FROM parcel p
         WHERE p.country = $1 AND NOT EXISTS (SELECT 1 FROM ${name} o WHERE o.parcel_id = p.parcel_id)`,
        [country],
      );
      await q(`CREATE INDEX ON ${name} (parcel_id, row_hash)`);
      await q(`ANALYZE ${name}`);
      return countRows(client, name);
    },
    {
      fingerprint: [plans.rows[0].digest, await codeFingerprint(client)].join('|'),
      async update(name) {
        await q(
          `DELETE FROM ${name} o
           WHERE NOT EXISTS (SELECT 1 FROM parcel p WHERE p.country = $1 AND p.parcel_id = o.parcel_id AND p.row_hash = o.row_hash)`,
          [country],
        );
        const changed = await q(
          `CREATE TEMP TABLE utilization_changed_parcel ON COMMIT DROP AS
           SELECT p.parcel_id, p.row_hash, p.geom, p.area_m2 FROM parcel p
           WHERE p.country = $1 AND NOT EXISTS (SELECT 1 FROM ${name} o WHERE o.parcel_id = p.parcel_id AND o.row_hash = p.row_hash)`,
          [country],
        );
        recomputed = changed.rowCount ?? 0;
        // From each changed parcel into the plans' GiST index.
        await q(
          `INSERT INTO ${name} (parcel_id, row_hash, plan_municipality_code, plan_id, overlap_m2)
           SELECT c.parcel_id, c.row_hash, z.plan_municipality_code, z.plan_id, z.overlap_m2
           FROM utilization_changed_parcel c
           LEFT JOIN LATERAL (
             SELECT z.municipality_code AS plan_municipality_code, z.plan_id, (${overlap('c')})::numeric AS overlap_m2
             FROM zoning_plan z
             WHERE z.country = $1 AND z.status = 'ADOPTED' AND z.geom && c.geom AND ST_Intersects(z.geom, c.geom)
           ) z ON true`,
          [country],
        );
        await q(`DROP TABLE utilization_changed_parcel`);
        return countRows(client, name);
      },
    },
  );
  return { table, recomputed };
}

/** Properties under an adopted plan, for the ledger; then the shared temp tables are dropped. */
export async function finishPlanOverlaps(client: pg.PoolClient): Promise<number> {
  const properties = (await client.query(`SELECT count(*)::int AS n FROM (SELECT cadastre_id FROM utilization_overlap GROUP BY cadastre_id) properties`)).rows[0].n as number;
  await client.query(`DROP TABLE utilization_overlap, utilization_plot, utilization_plan`);
  return properties;
}
