/**
 * Fitting the AVM on the sales of derive_recent_sales marked `training`:
 * 1. the hedonic model (hedonic-model.ts) on every training sale, and once per fold without it;
 * 2. each training sale's residual under the full model, and its out-of-fold prediction;
 * 3. the comparables blend: a property's estimate moves by the similarity-weighted mean residual
 *    of its comparable sales, shrunk by κ (Σ sim·residual ÷ (Σ sim + κ)): location and
 *    neighbourhood effects the hedonic model cannot see. κ is chosen on the out-of-fold errors;
 * 4. the interval: the 10th and 90th percentiles of the out-of-fold errors (after the blend), so
 *    [low, high] is an 80 % interval by the model's own out-of-sample record.
 * Everything a fit reads or writes stays in session temp tables; only the sparse normal
 * equations are held in memory.
 */
import type pg from 'pg';
import { NEAREST_TABLE, SaleIndex, writeNearestSales } from '../comparables/nearest-sales.js';
import { SALES_TABLE } from '../comparables/recent-sales.js';
import { FOLDS, FoldedNormalEquations, HedonicDesign } from './hedonic-model.js';
import { createCoefficientTables, FULL_MODEL, monthsBackSql, predictionSql, storeCoefficients, streamTrainingRows } from './hedonic-sql.js';

export const BLEND_TABLE = 'derive_sale_blend';
/** Fewer training sales than this and a country's model is not fitted (the run fails, live data untouched). */
export const MIN_TRAINING_SALES = 30;
/** κ candidates; the last is "no blend" (hedonic model alone). */
const BLEND_STRENGTHS = [0.25, 0.5, 1, 2, 4, 8, 1e9];
export const INTERVAL_QUANTILES = [0.1, 0.9] as const;

export interface AvmFit {
  trainingSales: number;
  /** κ of the blend. */
  blendStrength: number;
  /** Median out-of-fold ln error, added to every estimate so errors centre on zero. */
  shift: number;
  /** ln(low / estimate) and ln(high / estimate). */
  lowLog: number;
  highLog: number;
  /** Median absolute out-of-fold error (ln units) at the chosen κ. */
  crossValidatedError: number;
}

const sales = `pg_temp.${SALES_TABLE}`;

/** Marks the training sales (`trainingWhere`, SQL on the sales table) and their folds. */
export async function markTraining(client: pg.PoolClient, trainingWhere: string): Promise<void> {
  await client.query(`ALTER TABLE ${sales} ADD COLUMN IF NOT EXISTS training boolean, ADD COLUMN IF NOT EXISTS fold int,
                      ADD COLUMN IF NOT EXISTS log_price double precision,
                      ADD COLUMN IF NOT EXISTS residual double precision, ADD COLUMN IF NOT EXISTS oof double precision`);
  // The fold uses other digits of the id hash than a hold-out (id_hash % 5), so folds stay balanced.
  // ln of the numeric price once per sale (about 15 µs each; the error quantiles read it 21 times
  // a sale): the same float8 as ln(price) in an expression with a float8.
  await client.query(`UPDATE ${sales} SET training = (${trainingWhere}), fold = (id_hash / 5) % ${FOLDS}, log_price = ln(price), residual = NULL, oof = NULL`);
}

export async function fitAvm(client: pg.PoolClient, country: string, asOf: string): Promise<AvmFit> {
  const levels = await client.query(
    `SELECT coalesce(array_agg(DISTINCT segment), '{}') AS segment, coalesce(array_agg(DISTINCT municipality_code), '{}') AS municipality, coalesce(array_agg(DISTINCT model_class), '{}') AS "modelClass",
            coalesce(array_agg(DISTINCT coalesce(building_type, '')), '{}') AS "buildingType", count(*)::int AS count
     FROM ${sales} WHERE training`,
  );
  const { count, ...keys } = levels.rows[0];
  if (count < MIN_TRAINING_SALES) {
    throw new Error(`valuations ${country}: ${count} sales with a price in the five years before ${asOf}; the model needs at least ${MIN_TRAINING_SALES}`);
  }
  const design = new HedonicDesign(keys);
  const equations = new FoldedNormalEquations(design);
  await streamTrainingRows(client, sales, asOf, (row) => equations.add(row));

  await createCoefficientTables(client);
  await storeCoefficients(client, FULL_MODEL, equations.solve());
  for (let fold = 0; fold < FOLDS; fold++) await storeCoefficients(client, fold, equations.solve(fold));

  const monthsBack = monthsBackSql('t.sale_date', `$1::date`);
  const year = 'extract(year FROM t.sale_date)';
  const full = predictionSql('t', String(FULL_MODEL), monthsBack, year, 'f');
  const outOfFold = predictionSql('t', 't.fold', monthsBack, year, 'o');
  await client.query(
    `UPDATE ${sales} s SET residual = s.log_price - p.full_prediction, oof = p.oof_prediction
     FROM (SELECT t.transaction_id, ${full.expression} AS full_prediction, ${outOfFold.expression} AS oof_prediction
           FROM ${sales} t ${full.joins} ${outOfFold.joins} WHERE t.training) p
     WHERE p.transaction_id = s.transaction_id`,
    [asOf],
  );

  // Each training sale's comparables among the other training sales, and their residuals.
  const training = await SaleIndex.load(client, sales, 'training');
  await writeNearestSales(client, { subjects: sales, subjectKey: 'transaction_id', subjectWhere: 'training', sales: training });
  await client.query(`DROP TABLE IF EXISTS pg_temp.${BLEND_TABLE}`);
  await client.query(
    `CREATE TEMP TABLE ${BLEND_TABLE} AS
     SELECT c.subject_id AS transaction_id, sum(c.similarity * n.residual) AS weighted_residual, sum(c.similarity) AS weight
     FROM pg_temp.${NEAREST_TABLE} c JOIN ${sales} n ON n.transaction_id = c.transaction_id
     GROUP BY c.subject_id`,
  );

  const errors = `SELECT k.kappa, s.log_price - s.oof - coalesce(b.weighted_residual / (b.weight + k.kappa), 0) AS e
                  FROM ${sales} s LEFT JOIN pg_temp.${BLEND_TABLE} b USING (transaction_id)
                  CROSS JOIN unnest($1::float8[]) k(kappa) WHERE s.training`;
  const choice = await client.query(
    `SELECT kappa, percentile_cont(0.5) WITHIN GROUP (ORDER BY e) AS shift
     FROM (${errors}) e GROUP BY kappa`,
    [BLEND_STRENGTHS],
  );
  const shifts = new Map<number, number>(choice.rows.map((r) => [Number(r.kappa), Number(r.shift)]));
  const scored = await client.query(
    `SELECT e.kappa, percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(e.e - sh.shift)) AS error,
            percentile_cont($3::float8) WITHIN GROUP (ORDER BY e.e - sh.shift) AS low,
            percentile_cont($4::float8) WITHIN GROUP (ORDER BY e.e - sh.shift) AS high
     FROM (${errors}) e JOIN unnest($1::float8[], $2::float8[]) sh(kappa, shift) ON sh.kappa = e.kappa
     GROUP BY e.kappa ORDER BY error, e.kappa LIMIT 1`,
    [BLEND_STRENGTHS, BLEND_STRENGTHS.map((k) => shifts.get(k) ?? 0), INTERVAL_QUANTILES[0], INTERVAL_QUANTILES[1]],
  );
  const best = scored.rows[0];
  return {
    trainingSales: count,
    blendStrength: Number(best.kappa),
    shift: shifts.get(Number(best.kappa)) ?? 0,
    lowLog: Number(best.low),
    highLog: Number(best.high),
    crossValidatedError: Number(best.error),
  };
}
