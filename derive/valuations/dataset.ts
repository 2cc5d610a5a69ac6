/**
 * Valuations (issue 6): an automated valuation of every built property as of asOf
 * (docs/derived/valuations.md): the hedonic model per market segment with its monthly price
 * index, blended with the property's comparables (the comparables dataset, computed first),
 * an 80 % interval from the model's out-of-sample errors, and a rent per m² by the yield method.
 * Served by GET /properties/{country}/{id}/valuations.
 */
import type { Country } from '../../lib/domain/country.js';
import type { DerivedDataset } from '../dataset.js';
import { propertyFeatures } from '../comparables/property-features.js';
import { createRecentSales, SALES_TABLE } from '../comparables/recent-sales.js';
import { fitAvm, markTraining } from './fit-avm.js';
import { FULL_MODEL, predictionSql } from './hedonic-sql.js';
import { grossYieldSql } from './rent.js';

export const CURRENCY: Record<Country, string> = { NO: 'NOK', SE: 'SEK' };

export const valuations: DerivedDataset = {
  id: 'valuations',
  title: 'Automated valuations',
  liveTable: 'valuation',
  keyColumns: ['cadastre_id'],
  valueColumns: ['currency', 'value_estimate', 'value_low', 'value_high', 'rent_estimate_per_m2_year', 'rent_low', 'rent_high', 'method', 'valued_at'],
  dependsOn: ['comparables'],
  async compute({ client, country, asOf, stagingTable, shared }) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new Error(`asOf "${asOf}" is not a YYYY-MM-DD date`);
    const features = await propertyFeatures({ client, country, shared });
    const sales = await createRecentSales(client, country, asOf, features.table);
    await markTraining(client, 'true');
    const fit = await fitAvm(client, country, asOf);
    // In the asOf month (month effect 0) and year; blended with the property's live comparables.
    const model = predictionSql('f', String(FULL_MODEL), '0', `extract(year FROM $2::date)`);
    await client.query(
      `INSERT INTO ${stagingTable} (country, cadastre_id, currency, value_estimate, value_low, value_high,
                                    rent_estimate_per_m2_year, rent_low, rent_high, method, valued_at)
       SELECT $1, v.cadastre_id, $3, round(v.estimate, -3), round(v.estimate * $6::numeric, -3), round(v.estimate * $7::numeric, -3),
              round(v.estimate * v.yield / v.size_m2::numeric, 0), round(v.estimate * $6::numeric * v.yield / v.size_m2::numeric, 0), round(v.estimate * $7::numeric * v.yield / v.size_m2::numeric, 0),
              'AVM', $2::date::timestamp AT TIME ZONE 'UTC'
       FROM (
         SELECT f.cadastre_id, f.size_m2, ${grossYieldSql('f')}::numeric AS yield,
                exp(${model.expression} + coalesce(b.weighted_residual / (b.weight + $4), 0) + $5)::numeric AS estimate
         FROM ${features.table} f
         ${model.joins}
         LEFT JOIN (
           -- The two arrays the blend reads, not the view comparable_transaction, which unnests all
           -- four (the prices as numeric): that took half of this statement.
           SELECT c.cadastre_id, sum(u.similarity * s.residual) AS weighted_residual, sum(u.similarity) AS weight
           FROM property_comparables c
           CROSS JOIN LATERAL unnest(c.transaction_ids, c.similarities) AS u(transaction_id, similarity)
           JOIN pg_temp.${SALES_TABLE} s ON s.transaction_id = u.transaction_id
           WHERE c.country = $1
           GROUP BY c.cadastre_id
         ) b ON b.cadastre_id = f.cadastre_id
         -- OFFSET 0 keeps v a subquery: pulled up, its estimate expression (ln, exp, the spline)
         -- was evaluated once for each of the nine uses of v.estimate.
         OFFSET 0
       ) v`,
      [country, asOf, CURRENCY[country], fit.blendStrength, fit.shift, Math.exp(fit.lowLog), Math.exp(fit.highLog)],
    );
    return {
      rowsRead: sales,
      details: {
        builtProperties: features.rows,
        propertyFeatures: features.reused ? 'reused' : 'built',
        trainingSales: fit.trainingSales,
        blendStrength: fit.blendStrength,
        intervalLow: Math.exp(fit.lowLog),
        intervalHigh: Math.exp(fit.highLog),
        crossValidatedMedianError: Math.expm1(fit.crossValidatedError),
      },
    };
  },
};
