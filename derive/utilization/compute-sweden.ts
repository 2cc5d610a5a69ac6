import type { DeriveContext, DeriveStats } from '../dataset.js';
import { finishPlanOverlaps, stagePlanOverlaps } from './plan-overlap.js';

/**
 * Sweden, per property with parcels: the detaljplan in force overlapping most of its plot (ties:
 * the newest), its byggnadsarea provision (percent of the plot, or m² per property) as the
 * allowed built-over share, its bruttoarea provision (BTA) as the allowed floor area, and what
 * the property's buildings cover: Lantmäteriet's byggnad gives footprints but no floor area,
 * so the built-over area is measured and the floor area built is not stated.
 */
export async function computeSwedishUtilization({ client, country, stagingTable, shared }: DeriveContext): Promise<DeriveStats> {
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  const overlaps = await stagePlanOverlaps(client, country, shared);
  await q(
    `CREATE TEMP TABLE utilization_footprint ON COMMIT DROP AS
     SELECT b.cadastre_id, sum(b.footprint_m2) AS built_over_m2, count(*)::int AS buildings
     FROM building b
     WHERE b.country = $1 AND b.cadastre_id IS NOT NULL AND b.footprint_m2 IS NOT NULL
     GROUP BY b.cadastre_id`,
    [country],
  );
  const staged = await q(
    `INSERT INTO ${stagingTable} (country, cadastre_id, allowed_bya, allowed_bra_m2, built_bra_m2, remaining_bra_m2, basis,
                                 plan_municipality_code, plan_id, plot_area_m2, built_over_m2)
     SELECT $1, x.cadastre_id, round(x.allowed_bya::numeric, 1)::float8, round(x.allowed_floor::numeric, 1)::float8, NULL, NULL,
            format('Plan in force %s "%s"%s: %s%s, plot area %s m²%s; built over %s m² (%s) = %s %% of the plot%s; the Swedish registers give no floor area, so no floor area built or remaining',
                   z.plan_id, z.name,
                   CASE WHEN z.adopted_date IS NOT NULL THEN format(' (laga kraft %s)', z.adopted_date) ELSE '' END,
                   CASE WHEN z.bya_pct IS NOT NULL THEN format('byggnadsarea %s %% of the plot (the plan''s provision)', z.bya_pct)
                        WHEN z.bya_m2 IS NOT NULL THEN format('byggnadsarea %s m² per property (the plan''s provision), %s %% of this plot', z.bya_m2, round(x.allowed_bya::numeric, 1))
                        ELSE 'no byggnadsarea provision' END,
                   CASE WHEN z.bra_m2 IS NOT NULL THEN format(', bruttoarea (BTA) %s m² per property', z.bra_m2)
                        WHEN x.allowed_bya IS NOT NULL THEN ', no bruttoarea provision, so allowed floor area = the byggnadsarea allowed (one storey)'
                        ELSE '' END,
                   round(x.plot_area_m2::numeric, 1),
                   CASE WHEN x.overlap_m2 < x.plot_area_m2 * 0.995 THEN format(', %s %% of it under this plan', round((100 * x.overlap_m2 / x.plot_area_m2)::numeric)) ELSE '' END,
                   round(x.built_over::numeric, 1),
                   CASE x.buildings WHEN 0 THEN 'no building registered' WHEN 1 THEN 'the footprint of 1 building' ELSE format('the footprints of %s buildings', x.buildings) END,
                   round((100 * x.built_over / x.plot_area_m2)::numeric, 1),
                   CASE WHEN x.allowed_bya IS NOT NULL THEN format(', %s m² of the allowed byggnadsarea %s',
                          round(abs(x.allowed_bya / 100 * x.plot_area_m2 - x.built_over)::numeric, 1),
                          CASE WHEN x.allowed_bya / 100 * x.plot_area_m2 >= x.built_over THEN 'left' ELSE 'exceeded' END)
                        ELSE '' END),
            z.municipality_code, z.plan_id, round(x.plot_area_m2::numeric, 1)::float8, round(x.built_over::numeric, 1)::float8
     FROM (
       SELECT p.cadastre_id, p.plan_municipality_code, p.plan_id, p.overlap_m2, p.plot_area_m2,
              coalesce(f.built_over_m2, 0) AS built_over, coalesce(f.buildings, 0) AS buildings,
              CASE WHEN z.bya_pct IS NOT NULL THEN z.bya_pct WHEN z.bya_m2 IS NOT NULL THEN least(100, 100 * z.bya_m2 / p.plot_area_m2) END AS allowed_bya,
              CASE WHEN z.bra_m2 IS NOT NULL THEN z.bra_m2
                   WHEN z.bya_pct IS NOT NULL THEN z.bya_pct / 100 * p.plot_area_m2
                   WHEN z.bya_m2 IS NOT NULL THEN least(z.bya_m2, p.plot_area_m2) END AS allowed_floor
       FROM utilization_plan p
       JOIN zoning_plan z ON z.country = $1 AND z.municipality_code = p.plan_municipality_code AND z.plan_id = p.plan_id
       LEFT JOIN utilization_footprint f USING (cadastre_id)
     ) x
     JOIN zoning_plan z ON z.country = $1 AND z.municipality_code = x.plan_municipality_code AND z.plan_id = x.plan_id`,
    [country],
  );
  await q(`DROP TABLE utilization_footprint`);
  const properties = await finishPlanOverlaps(client);
  return { rowsRead: properties, details: { propertiesUnderAdoptedPlans: properties, rows: staged.rowCount ?? 0, ...overlaps } };
}
