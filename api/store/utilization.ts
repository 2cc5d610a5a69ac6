import type pg from 'pg';

/**
 * How much of what the zoning allows is built, or undefined before the derive step computed it.
 * The built-over share is measured where the buildings' footprints are known (Sweden).
 */
export async function fetchUtilization(db: pg.Pool, country: string, cadastreId: string): Promise<unknown | undefined> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object('allowedBya', u.allowed_bya, 'allowedBraM2', u.allowed_bra_m2,
              'builtBraM2', u.built_bra_m2, 'remainingBraM2', u.remaining_bra_m2,
              'builtBya', round((100 * u.built_over_m2 / nullif(u.plot_area_m2, 0))::numeric, 1), 'basis', u.basis)) AS utilization
     FROM utilization u WHERE u.country = $1 AND u.cadastre_id = $2`,
    [country, cadastreId],
  );
  return result.rows[0]?.utilization;
}
