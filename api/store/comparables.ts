import type pg from 'pg';
import { transactionJson } from './transactions.js';
import { visibleTo } from './visibility.js';

/**
 * Comparable sales the derive step chose for a property, most similar first. Each sale is a
 * row of the property sold, usually another one: a sandbox sees only the sales of demo
 * properties (api/store/visibility.ts).
 */
export async function fetchComparables(db: pg.Pool, country: string, cadastreId: string, withNames: boolean, sandbox: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object(${transactionJson(withNames)},
              'distanceM', round(c.distance_m::numeric, 1), 'pricePerM2', api_money(c.price_per_m2_amount, c.price_per_m2_currency),
              'similarity', c.similarity)) AS comparable
     FROM comparable_transaction c
     JOIN property_transaction t ON t.country = c.country AND t.transaction_id = c.transaction_id
     WHERE c.country = $1 AND c.cadastre_id = $2 AND ${visibleTo('$3::boolean', 't.country', 't.cadastre_id')}
     ORDER BY c.rank`,
    [country, cadastreId, sandbox],
  );
  return result.rows.map((row) => row.comparable);
}
