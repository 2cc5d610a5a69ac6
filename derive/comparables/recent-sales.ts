/**
 * The sales comparables and valuations learn from, in a session temp table
 * (`derive_recent_sales`): registered sales (kind SALE) of a whole property (no share, or 1/1)
 * with a price, registered in the five years before `asOf` (asOf itself excluded), of a
 * property that has features (`features`, property-features.ts: a size, hence a price per m²), written
 * in transaction-id order (nearest-sales.ts indexes them in memory in that order).
 */
import type pg from 'pg';
import type { Country } from '../../lib/domain/country.js';
import { FEATURES_TABLE, METRIC_SRID } from './property-features.js';

export const SALES_TABLE = 'derive_recent_sales';
export const LOOKBACK_YEARS = 5;

export async function createRecentSales(client: pg.PoolClient, country: Country, asOf: string, features = `pg_temp.${FEATURES_TABLE}`): Promise<number> {
  const srid = METRIC_SRID[country];
  await client.query(`DROP TABLE IF EXISTS pg_temp.${SALES_TABLE}`);
  const result = await client.query(
    `CREATE TEMP TABLE ${SALES_TABLE} AS
     SELECT t.transaction_id, t.cadastre_id, t.registered_at, (t.registered_at AT TIME ZONE 'Europe/Oslo')::date AS sale_date, t.price_amount AS price, t.price_currency AS currency,
            (t.price_amount / f.size_m2)::double precision AS price_per_m2,
            f.property_type, f.municipality_code, f.building_type, f.built_year, f.size_m2, f.plot_m2, f.segment, f.segment_type, f.model_class,
            f.geom::geometry(Point, ${srid}) AS geom,
            -- A fixed number per sale, from its id (folds, hold-outs): the same on every run.
            ('x' || left(md5(t.transaction_id), 8))::bit(32)::int & 2147483647 AS id_hash
     FROM property_transaction t
     JOIN ${features} f ON f.cadastre_id = t.cadastre_id
     WHERE t.country = $1 AND t.kind = 'SALE' AND t.price_amount > 0
       AND (t.share_denominator IS NULL OR t.share_numerator = t.share_denominator)
       AND t.registered_at >= ($2::date - make_interval(years => ${LOOKBACK_YEARS}))
       AND t.registered_at < $2::date
     ORDER BY t.transaction_id`,
    [country, asOf],
  );
  await client.query(`CREATE UNIQUE INDEX ON pg_temp.${SALES_TABLE} (transaction_id)`);
  await client.query(`ANALYZE pg_temp.${SALES_TABLE}`);
  return result.rowCount ?? 0;
}
