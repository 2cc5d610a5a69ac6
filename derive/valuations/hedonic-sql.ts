/**
 * The hedonic model in the database: its features as SQL expressions (one definition, used both
 * to stream the training rows to the fit and to predict), its coefficients in two session temp
 * tables (one model per fold, fold -1 the model on every sale), and the prediction as joins on
 * them, so millions of properties are valued in one INSERT … SELECT.
 */
import { createInterface } from 'node:readline';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { decodeCells } from '../../lib/copy-text.js';
import { AGE_KNOTS, INDEX_MONTHS, SCALAR_TERMS, type Coefficients, type HedonicRow } from './hedonic-model.js';

export const SCALAR_TABLE = 'derive_avm_scalar';
export const LEVEL_TABLE = 'derive_avm_level';
export const FULL_MODEL = -1;

/** Feature expressions of a relation alias with size_m2, plot_m2, built_year (predictions also read segment, municipality_code, model_class, building_type). */
export function featureSql(alias: string, yearSql: string) {
  return {
    logSize: `ln(${alias}.size_m2 / 100.0)`,
    logPlot: `ln(1 + coalesce(${alias}.plot_m2, 0))`,
    age: `(CASE WHEN ${alias}.built_year IS NULL THEN NULL ELSE greatest(0, ${yearSql} - ${alias}.built_year) / 100.0 END)`,
  };
}

/** Whole months from `daySql` to the month of `asOfSql` (0 in the asOf month), capped at INDEX_MONTHS. */
export function monthsBackSql(daySql: string, asOfSql: string): string {
  const months = (d: string) => `(extract(year FROM ${d}) * 12 + extract(month FROM ${d}))`;
  return `least(${INDEX_MONTHS}, greatest(0, ${months(asOfSql)} - ${months(daySql)}))::int`;
}

export async function createCoefficientTables(client: pg.PoolClient): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.${SCALAR_TABLE}, pg_temp.${LEVEL_TABLE}`);
  await client.query(`CREATE TEMP TABLE ${SCALAR_TABLE} (fold int PRIMARY KEY, ${SCALAR_TERMS.map((t) => `${t} double precision NOT NULL`).join(', ')})`);
  await client.query(`CREATE TEMP TABLE ${LEVEL_TABLE} (fold int, term text, key text, value double precision NOT NULL, PRIMARY KEY (fold, term, key))`);
}

export async function storeCoefficients(client: pg.PoolClient, fold: number, coefficients: Coefficients): Promise<void> {
  await client.query(
    `INSERT INTO ${SCALAR_TABLE} (fold, ${SCALAR_TERMS.join(', ')}) VALUES ($1, ${SCALAR_TERMS.map((_, i) => `$${i + 2}`).join(', ')})`,
    [fold, ...SCALAR_TERMS.map((term) => coefficients.scalars[term])],
  );
  const terms: string[] = [], keys: string[] = [], values: number[] = [];
  for (const [term, levels] of Object.entries(coefficients.levels)) {
    for (const [key, value] of levels) {
      terms.push(term);
      keys.push(key);
      values.push(value);
    }
  }
  await client.query(
    `INSERT INTO ${LEVEL_TABLE} (fold, term, key, value) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::float8[])`,
    [fold, terms, keys, values],
  );
}

/**
 * The predicted ln price of rows of `alias` under the model of fold `foldSql`, at `monthsBack`
 * months before asOf and in year `yearSql`: joins to add to the FROM clause, and the expression.
 */
export function predictionSql(alias: string, foldSql: string, monthsBack: string, yearSql: string, prefix = 'm') {
  const f = featureSql(alias, yearSql);
  const level = (name: string, term: string, key: string) =>
    `LEFT JOIN ${LEVEL_TABLE} ${prefix}_${name} ON ${prefix}_${name}.fold = ${foldSql} AND ${prefix}_${name}.term = '${term}' AND ${prefix}_${name}.key = ${key}`;
  const joins = [
    `JOIN ${SCALAR_TABLE} ${prefix}_s ON ${prefix}_s.fold = ${foldSql}`,
    level('seg', 'segment', `${alias}.segment`),
    level('mu', 'municipality', `${alias}.municipality_code`),
    level('cl', 'class', `${alias}.model_class`),
    level('sl', 'slope', `${alias}.model_class`),
    level('cu', 'curvature', `${alias}.model_class`),
    level('pl', 'plot', `${alias}.model_class`),
    level('bt', 'building_type', `coalesce(${alias}.building_type, '')`),
    level('mo', 'month', `(${monthsBack})::text`),
  ].join('\n');
  const s = `${prefix}_s`;
  const ageCurve = [`${s}.age * ${f.age}`, ...AGE_KNOTS.map((k) => `${s}.age_${k} * greatest(0, ${f.age} - ${k / 100})`)].join(' + ');
  const expression = `(${s}.intercept + (${s}.log_size + coalesce(${prefix}_sl.value, 0)) * ${f.logSize}
    + (${s}.log_size_sq + coalesce(${prefix}_cu.value, 0)) * ${f.logSize} * ${f.logSize}
    + (${s}.log_plot + coalesce(${prefix}_pl.value, 0)) * ${f.logPlot}
    + CASE WHEN ${f.age} IS NULL THEN ${s}.age_unknown ELSE ${ageCurve} END
    + coalesce(${prefix}_seg.value, 0) + coalesce(${prefix}_mu.value, 0) + coalesce(${prefix}_cl.value, 0) + coalesce(${prefix}_bt.value, 0) + coalesce(${prefix}_mo.value, 0))`;
  return { joins, expression };
}

/**
 * Streams the training sales of `salesTable` (rows with `training`, `fold`, `log_price`, `sale_date`) to
 * `onRow` through COPY, so the fit holds one row at a time whatever the register's size.
 */
export async function streamTrainingRows(client: pg.PoolClient, salesTable: string, asOf: string, onRow: (row: HedonicRow) => void): Promise<void> {
  const f = featureSql('s', 'extract(year FROM s.sale_date)');
  const sql = `COPY (SELECT s.fold, s.log_price, s.segment, s.municipality_code, s.model_class, coalesce(s.building_type, ''), ${f.logSize}, ${f.logPlot}, ${f.age},
                      ${monthsBackSql('s.sale_date', `'${asOf}'::date`)}
                    FROM ${salesTable} s WHERE s.training ORDER BY s.transaction_id) TO STDOUT`;
  const stream = client.query(copyTo(sql));
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of lines) {
    const [fold, logPrice, segment, municipality, modelClass, buildingType, logSize, logPlot, age, monthsBack] = decodeCells(line);
    onRow({
      fold: Number(fold),
      logPrice: Number(logPrice),
      segment: segment!,
      municipality: municipality!,
      modelClass: modelClass!,
      buildingType: buildingType!,
      logSize: Number(logSize),
      logPlot: Number(logPlot),
      age: age === null ? null : Number(age),
      monthsBack: Number(monthsBack),
    });
  }
}
