/**
 * The hedonic model of the AVM: log price as a sum of effects, fitted by penalised least squares
 * (normal equations solved with ml-matrix's Cholesky decomposition).
 *
 *   ln price = intercept
 *            + segment effect (municipality group × property type)
 *            + municipality effect (within its group, shrunk towards the group)
 *            + (β + class slope) · ln(size / 100 m²) + (γ + class curvature) · ln(size / 100 m²)²
 *            + (δ + class plot slope) · ln(1 + plot m²)
 *            + age curve: a piecewise-linear spline in the building's age at sale, with knots at
 *              AGE_KNOTS years (one effect for an unknown built year)
 *            + class effect + building-type effect
 *            + month effect (the monthly price index, 0 in the asOf month)
 * where the class is the property's model_class (property type × building type group:
 * houses, holiday homes, flats, offices ... have their own size and plot elasticities).
 *
 * Penalties keep it well posed when a segment or type has few sales: a ridge (RIDGE) pulls the
 * segment, class and building-type effects towards 0, and a second-difference penalty
 * (SMOOTHNESS) makes the month effects a smooth index, so a month with few sales borrows from
 * its neighbours and the months after the last sale continue the trend.
 *
 * Rows are sparse (about ten non-zero columns), so the normal equations are accumulated one
 * row at a time with sparse rank-one updates, one set per cross-validation fold: a fold's model
 * is fitted on the total minus that fold, from one pass over the sales.
 */
import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';

export const FOLDS = 5;
/** Months of the price index before the asOf month (the five-year window). */
export const INDEX_MONTHS = 60;
const RIDGE = 2;
const SMOOTHNESS = 400;

/** One sale as the model sees it (features computed in SQL: hedonicFeatureSql). */
export interface HedonicRow {
  fold: number;
  logPrice: number;
  segment: string;
  municipality: string;
  modelClass: string;
  buildingType: string;
  /** ln(size / 100). */
  logSize: number;
  /** ln(1 + plot m²). */
  logPlot: number;
  /** Age at sale in centuries; null when the built year is unknown. */
  age: number | null;
  /** Months before the asOf month, 0..INDEX_MONTHS. */
  monthsBack: number;
}

/** Knots of the age spline, in years. */
export const AGE_KNOTS = [5, 15, 30, 60, 90, 120] as const;
export const SCALAR_TERMS = ['intercept', 'log_size', 'log_size_sq', 'log_plot', 'age', ...AGE_KNOTS.map((k) => `age_${k}` as const), 'age_unknown'] as const;
export type ScalarTerm = (typeof SCALAR_TERMS)[number];
export const LEVEL_TERMS = ['segment', 'municipality', 'class', 'slope', 'curvature', 'plot', 'building_type', 'month'] as const;
export type LevelTerm = (typeof LEVEL_TERMS)[number];

export interface Coefficients {
  scalars: Record<ScalarTerm, number>;
  levels: Record<LevelTerm, Map<string, number>>;
}

/** Column layout: scalars, then one column per level of each categorical term. */
export class HedonicDesign {
  readonly columns: number;
  private readonly offsets: Record<LevelTerm, Map<string, number>>;

  constructor(levels: { segment: string[]; municipality: string[]; modelClass: string[]; buildingType: string[] }) {
    let next = SCALAR_TERMS.length;
    const place = (keys: string[]) => new Map(keys.map((key) => [key, next++]));
    this.offsets = {
      segment: place(levels.segment),
      municipality: place(levels.municipality),
      class: place(levels.modelClass),
      slope: place(levels.modelClass),
      curvature: place(levels.modelClass),
      plot: place(levels.modelClass),
      building_type: place(levels.buildingType),
      // Month 0 (the asOf month) is the reference: no column.
      month: place(Array.from({ length: INDEX_MONTHS }, (_, k) => String(k + 1))),
    };
    this.columns = next;
  }

  /** The row's non-zero columns and values. */
  entries(row: HedonicRow): { index: number[]; value: number[] } {
    const index = [0, 1, 2, 3];
    const value = [1, row.logSize, row.logSize * row.logSize, row.logPlot];
    const unknownAge = SCALAR_TERMS.length - 1;
    if (row.age === null) {
      index.push(unknownAge);
      value.push(1);
    } else {
      index.push(4);
      value.push(row.age);
      AGE_KNOTS.forEach((knot, k) => {
        const hinge = row.age! - knot / 100;
        if (hinge > 0) {
          index.push(5 + k);
          value.push(hinge);
        }
      });
    }
    const add = (term: LevelTerm, key: string, x: number) => {
      const column = this.offsets[term].get(key);
      if (column !== undefined) {
        index.push(column);
        value.push(x);
      }
    };
    add('segment', row.segment, 1);
    add('municipality', row.municipality, 1);
    add('class', row.modelClass, 1);
    add('slope', row.modelClass, row.logSize);
    add('curvature', row.modelClass, row.logSize * row.logSize);
    add('plot', row.modelClass, row.logPlot);
    add('building_type', row.buildingType, 1);
    if (row.monthsBack > 0) add('month', String(Math.min(row.monthsBack, INDEX_MONTHS)), 1);
    return { index, value };
  }

  /** Ridge on the categorical effects, second differences on the month effects (with month 0 fixed at 0). */
  penalty(): Matrix {
    const p = new Matrix(this.columns, this.columns);
    for (const term of ['segment', 'municipality', 'class', 'slope', 'curvature', 'plot', 'building_type'] as const) for (const column of this.offsets[term].values()) p.set(column, column, RIDGE);
    const month = (k: number) => (k === 0 ? -1 : this.offsets.month.get(String(k))!);
    for (let k = 1; k < INDEX_MONTHS; k++) {
      const taps: [number, number][] = [[month(k - 1), 1], [month(k), -2], [month(k + 1), 1]];
      for (const [a, wa] of taps) for (const [b, wb] of taps) if (a >= 0 && b >= 0) p.set(a, b, p.get(a, b) + SMOOTHNESS * wa * wb);
    }
    return p;
  }

  coefficients(beta: Float64Array): Coefficients {
    const scalars = Object.fromEntries(SCALAR_TERMS.map((term, i) => [term, beta[i]])) as Record<ScalarTerm, number>;
    const levels = Object.fromEntries(
      LEVEL_TERMS.map((term) => [term, new Map([...this.offsets[term]].map(([key, column]) => [key, beta[column]]))]),
    ) as Record<LevelTerm, Map<string, number>>;
    return { scalars, levels };
  }
}

/** XᵀX and Xᵀy of the rows seen, per fold. */
export class FoldedNormalEquations {
  readonly xtx: Float64Array[];
  readonly xty: Float64Array[];
  readonly counts: number[];

  constructor(readonly design: HedonicDesign) {
    const p = design.columns;
    this.xtx = Array.from({ length: FOLDS }, () => new Float64Array(p * p));
    this.xty = Array.from({ length: FOLDS }, () => new Float64Array(p));
    this.counts = Array(FOLDS).fill(0);
  }

  add(row: HedonicRow): void {
    const p = this.design.columns;
    const { index, value } = this.design.entries(row);
    const xtx = this.xtx[row.fold], xty = this.xty[row.fold];
    for (let a = 0; a < index.length; a++) {
      xty[index[a]] += value[a] * row.logPrice;
      for (let b = 0; b < index.length; b++) xtx[index[a] * p + index[b]] += value[a] * value[b];
    }
    this.counts[row.fold]++;
  }

  get count(): number {
    return this.counts.reduce((sum, n) => sum + n, 0);
  }

  /** Coefficients fitted on every fold but `leaveOut` (all folds when undefined). */
  solve(leaveOut?: number): Coefficients {
    const p = this.design.columns;
    const a = this.design.penalty();
    const b = new Matrix(p, 1);
    for (let fold = 0; fold < FOLDS; fold++) {
      if (fold === leaveOut) continue;
      const xtx = this.xtx[fold], xty = this.xty[fold];
      for (let i = 0; i < p; i++) {
        b.set(i, 0, b.get(i, 0) + xty[i]);
        for (let j = 0; j < p; j++) if (xtx[i * p + j] !== 0) a.set(i, j, a.get(i, j) + xtx[i * p + j]);
      }
    }
    // Unpenalised columns with no data (an unknown built year never seen) would make A singular.
    for (let i = 0; i < p; i++) if (a.get(i, i) === 0) a.set(i, i, 1);
    // When no sale has a known built year (Sweden's registers give none) the unknown-age column
    // is the intercept's (its count equals the row count) and A is singular: Cholesky failed and
    // the SVD fallback took 45 s at a tenth of Sweden. The effect is fixed at 0 instead: a property
    // of unknown age is predicted with intercept + age_unknown, the same sum either way.
    const unknownAge = SCALAR_TERMS.length - 1;
    if (a.get(unknownAge, unknownAge) === a.get(0, 0)) {
      for (let j = 0; j < p; j++) {
        a.set(unknownAge, j, 0);
        a.set(j, unknownAge, 0);
      }
      a.set(unknownAge, unknownAge, 1);
      b.set(unknownAge, 0, 0);
    }
    const cholesky = new CholeskyDecomposition(a);
    const beta = cholesky.isPositiveDefinite() ? cholesky.solve(b) : solve(a, b, true);
    return this.design.coefficients(Float64Array.from(beta.getColumn(0)));
  }
}
