/**
 * Comparables (issue 6): per built property, the most similar registered sales of the five
 * years before asOf, within a radius that widens until enough are found
 * (docs/derived/comparables.md). Served by GET /properties/{country}/{id}/comparable-transactions.
 */
import type { DerivedDataset } from '../dataset.js';
import { nearestSalesSql } from './nearest-sales.js';
import { createPropertyFeatures, FEATURES_TABLE } from './property-features.js';
import { createRecentSales, SALES_TABLE } from './recent-sales.js';

export const comparables: DerivedDataset = {
  id: 'comparables',
  title: 'Comparable sales',
  liveTable: 'comparable_transaction',
  keyColumns: ['cadastre_id', 'transaction_id'],
  valueColumns: ['distance_m', 'price_per_m2_amount', 'price_per_m2_currency', 'similarity'],
  async compute({ client, country, asOf, stagingTable }) {
    const properties = await createPropertyFeatures(client, country);
    const sales = await createRecentSales(client, country, asOf);
    const result = await client.query(
      `INSERT INTO ${stagingTable} (country, cadastre_id, transaction_id, distance_m, price_per_m2_amount, price_per_m2_currency, similarity)
       SELECT $1, c.subject_id, c.transaction_id, round(c.distance_m::numeric, 2), round(c.price_per_m2::numeric, 2), c.currency, c.similarity
       FROM (${nearestSalesSql({ subjects: `pg_temp.${FEATURES_TABLE}`, subjectKey: 'cadastre_id', candidates: `pg_temp.${SALES_TABLE}` })}) c`,
      [country],
    );
    // rowsRead: the built properties considered; the sales they were compared with in details.
    return { rowsRead: properties, details: { builtProperties: properties, salesInWindow: sales, comparables: result.rowCount ?? 0 } };
  },
};
