import type pg from 'pg';

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
 * plot_area_m2), dropped at commit. Set-based: one pass over parcel × plan pairs found through
 * the GiST index.
 */
export async function stagePlanOverlaps(client: pg.PoolClient, country: string): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  // For this transaction only (JIT and work_mem are the derive activity's, lib/bulk-settings.ts):
  // text sorts for merge joins go through strcoll under the database's C.UTF-8 collation, hash
  // joins do not.
  await q(`SET LOCAL enable_mergejoin = off`);
  // Overlap of every parcel with every adopted plan it intersects, in m², computed pair by pair
  // while the spatial join visits one plan's parcels after another, and only then summed per
  // property. A parcel inside the plan (the common case) is not intersected at all; that test is
  // ST_Covers with the plan first (the same relation as ST_CoveredBy(parcel, plan)) so PostGIS
  // prepares the plan's geometry once for all its parcels.
  await q(
    `CREATE TEMP TABLE utilization_pair ON COMMIT DROP AS
     SELECT p.parcel_id, z.municipality_code AS plan_municipality_code, z.plan_id,
            CASE WHEN ST_Covers(z.geom, p.geom) THEN p.area_m2
                 ELSE ST_Area(ST_Intersection(p.geom, z.geom)::geography) END AS overlap_m2
     FROM zoning_plan z
     JOIN parcel p ON p.country = z.country AND z.geom && p.geom AND ST_Intersects(z.geom, p.geom)
     WHERE z.country = $1 AND z.status = 'ADOPTED'`,
    [country],
  );
  await q(
    `CREATE TEMP TABLE utilization_overlap ON COMMIT DROP AS
     SELECT pp.cadastre_id, o.plan_municipality_code, o.plan_id, sum(o.overlap_m2) AS overlap_m2
     FROM utilization_pair o
     JOIN parcel_property pp ON pp.country = $1 AND pp.parcel_id = o.parcel_id
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
}

/** Properties under an adopted plan, for the ledger; then the shared temp tables are dropped. */
export async function finishPlanOverlaps(client: pg.PoolClient): Promise<number> {
  const properties = (await client.query(`SELECT count(*)::int AS n FROM (SELECT cadastre_id FROM utilization_overlap GROUP BY cadastre_id) properties`)).rows[0].n as number;
  await client.query(`DROP TABLE utilization_pair, utilization_overlap, utilization_plot, utilization_plan`);
  return properties;
}
