/**
 * Comparables (issue 6): per built property, the most similar registered sales of the five
 * years before asOf, within a radius that widens until enough are found
 * (docs/derived/comparables.md). Served by GET /properties/{country}/{id}/comparable-transactions.
 */
import type { DerivedDataset } from '../dataset.js';
import { SaleIndex, writeNearestSales } from './nearest-sales.js';
import { propertyFeatures } from './property-features.js';
import { createRecentSales, SALES_TABLE } from './recent-sales.js';

export const comparables: DerivedDataset = {
  id: 'comparables',
  title: 'Comparable sales',
  // One row per property, its comparables as arrays in rank order; the view comparable_transaction
  // lists them as pairs (schema/1763900500000_comparables-per-property.sql).
  liveTable: 'property_comparables',
  keyColumns: ['cadastre_id'],
  valueColumns: ['transaction_ids', 'distances_m', 'prices_per_m2', 'price_per_m2_currency', 'similarities'],
  async compute({ client, country, asOf, stagingTable, shared }) {
    const features = await propertyFeatures({ client, country, shared });
    const sales = await createRecentSales(client, country, asOf, features.table);
    const index = await SaleIndex.load(client, `pg_temp.${SALES_TABLE}`);
    const comparableRows = await writeNearestSales(client, {
      subjects: features.table, subjectKey: 'cadastre_id', sales: index, staging: { table: stagingTable, country },
    });
    // rowsRead: the built properties considered; the sales they were compared with in details.
    return {
      rowsRead: features.rows,
      details: { builtProperties: features.rows, propertyFeatures: features.reused ? 'reused' : 'built', salesInWindow: sales, comparables: comparableRows },
    };
  },
};
