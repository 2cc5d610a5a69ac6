import type pg from 'pg';

/** The latest automated valuation of a property, or undefined before the derive step has valued it. */
export async function fetchValuation(db: pg.Pool, country: string, cadastreId: string): Promise<unknown | undefined> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object(
        'value', json_build_object('estimate', api_money(v.value_estimate, v.currency), 'low', api_money(v.value_low, v.currency), 'high', api_money(v.value_high, v.currency)),
        'rent', CASE WHEN v.rent_estimate_per_m2_year IS NOT NULL THEN json_build_object(
                  'estimatePerM2Year', api_money(v.rent_estimate_per_m2_year, v.currency), 'low', api_money(v.rent_low, v.currency), 'high', api_money(v.rent_high, v.currency)) END,
        'method', v.method, 'valuedAt', api_timestamp(v.valued_at))) AS valuation
     FROM valuation v WHERE v.country = $1 AND v.cadastre_id = $2`,
    [country, cadastreId],
  );
  return result.rows[0]?.valuation;
}
