import type { DeriveContext, DeriveStats } from '../dataset.js';
import { finishPlanOverlaps, stagePlanOverlaps } from './plan-overlap.js';

/**
 * Norway, per property with parcels: the adopted plan overlapping most of its plot (ties: the newest
 * plan), its %-BYA and BRA rules against the plot area, and the floor area (BRA) its buildings
 * have (from the matrikkel details).
 */
export async function computeUtilization({ client, country, stagingTable, shared }: DeriveContext): Promise<DeriveStats> {
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  const overlaps = await stagePlanOverlaps(client, country, shared);
  // Floor area built: each building's BRA (bruksareal) from the matrikkel details, on the
  // property the detail names, else the one the building point stands on.
  await q(
    `CREATE TEMP TABLE utilization_built ON COMMIT DROP AS
     SELECT coalesce(d.cadastre_id, b.cadastre_id) AS cadastre_id, sum(d.usable_area_m2) AS built_bra_m2,
            count(*) FILTER (WHERE d.usable_area_m2 IS NULL)::int AS without_area
     FROM building_detail d
     LEFT JOIN building b ON b.country = d.country AND b.building_number = d.building_number
     WHERE d.country = $1
     GROUP BY 1`,
    [country],
  );
  const staged = await q(
    `INSERT INTO ${stagingTable} (country, cadastre_id, allowed_bya, allowed_bra_m2, built_bra_m2, remaining_bra_m2, basis,
                                 plan_municipality_code, plan_id, plot_area_m2)
     SELECT $1, x.cadastre_id, z.bya_pct, round(x.allowed_bra::numeric, 1)::float8, round(x.built::numeric, 1)::float8,
            round((x.allowed_bra - x.built)::numeric, 1)::float8,
            format('Adopted plan %s "%s"%s: %s, plot area %s m²%s; built BRA from %s',
                   z.plan_id, z.name,
                   CASE WHEN z.adopted_date IS NOT NULL THEN format(' (in force %s)', z.adopted_date) ELSE '' END,
                   CASE WHEN z.bra_m2 IS NOT NULL THEN format('BRA %s m² per plot (the plan''s rule)', z.bra_m2)
                        WHEN z.bya_pct IS NOT NULL THEN format('no BRA rule, so %%-BYA %s %% × plot area (one storey)', z.bya_pct)
                        ELSE 'no utilization rule' END,
                   round(x.plot_area_m2::numeric, 1),
                   CASE WHEN x.overlap_m2 < x.plot_area_m2 * 0.995 THEN format(', %s %% of it under this plan', round((100 * x.overlap_m2 / x.plot_area_m2)::numeric)) ELSE '' END,
                   CASE WHEN x.buildings_without_area > 0 THEN format('the buildings'' registered BRA (%s without a registered area not counted)', x.buildings_without_area)
                        ELSE 'the buildings'' registered BRA' END),
            z.municipality_code, z.plan_id, round(x.plot_area_m2::numeric, 1)::float8
     FROM (
       SELECT p.cadastre_id, p.plan_municipality_code, p.plan_id, p.overlap_m2, p.plot_area_m2,
              coalesce(b.built_bra_m2, 0) AS built, coalesce(b.without_area, 0) AS buildings_without_area,
              CASE WHEN z.bra_m2 IS NOT NULL THEN z.bra_m2 WHEN z.bya_pct IS NOT NULL THEN z.bya_pct / 100 * p.plot_area_m2 END AS allowed_bra
       FROM utilization_plan p
       JOIN zoning_plan z ON z.country = $1 AND z.municipality_code = p.plan_municipality_code AND z.plan_id = p.plan_id
       LEFT JOIN utilization_built b USING (cadastre_id)
     ) x
     JOIN zoning_plan z ON z.country = $1 AND z.municipality_code = x.plan_municipality_code AND z.plan_id = x.plan_id`,
    [country],
  );
  await q(`DROP TABLE utilization_built`);
  const properties = await finishPlanOverlaps(client);
  return { rowsRead: properties, details: { propertiesUnderAdoptedPlans: properties, rows: staged.rowCount ?? 0, ...overlaps } };
}
