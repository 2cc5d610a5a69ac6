import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { FoldedNormalEquations, HedonicDesign, type HedonicRow } from '../../../derive/valuations/hedonic-model.js';

// Sales generated exactly in the model's form (no noise): the fit must give the coefficients back.
// The age curve is piecewise linear: -0.9 per century, flattening after 30 years (+0.6) and rising after 90 (+0.5).
const TRUTH = { intercept: 14, logSize: 0.8, logSizeSq: -0.05, logPlot: 0.03, age: -0.9, age30: 0.6, age90: 0.5, ageUnknown: -0.1 };
const ageCurve = (age: number) => TRUTH.age * age + TRUTH.age30 * Math.max(0, age - 0.3) + TRUTH.age90 * Math.max(0, age - 0.9);
const SEGMENT: Record<string, number> = { '03:GRUNNEIENDOM': 0.2, '34:GRUNNEIENDOM': -0.2 };
const MONTHLY_TREND = -0.004; // each month back, prices 0.4 % lower: a straight index, which the smoothing leaves alone

function rows(count: number): HedonicRow[] {
  const rng = seedrandom.alea('hedonic-test');
  return Array.from({ length: count }, (_, i) => {
    const segment = i % 2 ? '03:GRUNNEIENDOM' : '34:GRUNNEIENDOM';
    const logSize = Math.log((40 + rng() * 300) / 100);
    const logPlot = Math.log(1 + 200 + rng() * 2000);
    const age = i % 10 === 0 ? null : rng() * 1.2;
    const monthsBack = Math.floor(rng() * 61);
    const logPrice = TRUTH.intercept + SEGMENT[segment] + TRUTH.logSize * logSize + TRUTH.logSizeSq * logSize ** 2 + TRUTH.logPlot * logPlot
      + (age === null ? TRUTH.ageUnknown : ageCurve(age)) + MONTHLY_TREND * monthsBack;
    return { fold: i % 5, logPrice, segment, municipality: segment.slice(0, 2) + '01', modelClass: 'GRUNNEIENDOM:11', buildingType: '111', logSize, logPlot, age, monthsBack };
  });
}

describe('hedonic model', () => {
  const design = new HedonicDesign({ segment: Object.keys(SEGMENT), municipality: ['0301', '3401'], modelClass: ['GRUNNEIENDOM:11'], buildingType: ['111'] });
  const equations = new FoldedNormalEquations(design);
  for (const row of rows(5000)) equations.add(row);

  it('recovers the coefficients of noise-free sales', () => {
    const { scalars, levels } = equations.solve();
    expect(equations.count).toBe(5000);
    expect(scalars.log_size + levels.slope.get('GRUNNEIENDOM:11')!).toBeCloseTo(TRUTH.logSize, 2);
    expect(scalars.log_size_sq + levels.curvature.get('GRUNNEIENDOM:11')!).toBeCloseTo(TRUTH.logSizeSq, 2);
    expect(scalars.log_plot + levels.plot.get('GRUNNEIENDOM:11')!).toBeCloseTo(TRUTH.logPlot, 2);
    // The spline's slope on each piece: -0.9 below 30 years, -0.3 from 30 to 90, +0.2 beyond.
    const slopeFrom = (from: number) =>
      scalars.age + [5, 15, 30, 60, 90, 120].filter((k) => k <= from).reduce((sum, k) => sum + scalars[`age_${k}` as keyof typeof scalars], 0);
    expect(slopeFrom(15)).toBeCloseTo(TRUTH.age, 2);
    expect(slopeFrom(60)).toBeCloseTo(TRUTH.age + TRUTH.age30, 2);
    expect(slopeFrom(90)).toBeCloseTo(TRUTH.age + TRUTH.age30 + TRUTH.age90, 2);
    expect(scalars.age_unknown).toBeCloseTo(TRUTH.ageUnknown, 2);
    // Each segment has one municipality here: the two effects share the segments' difference.
    const place = (segment: string, municipality: string) => levels.segment.get(segment)! + levels.municipality.get(municipality)!;
    expect(place('03:GRUNNEIENDOM', '0301') - place('34:GRUNNEIENDOM', '3401')).toBeCloseTo(0.4, 2);
    // The monthly index: month k back is k × 0.4 % below the asOf month.
    expect(levels.month.get('12')).toBeCloseTo(12 * MONTHLY_TREND, 3);
    expect(levels.month.get('60')).toBeCloseTo(60 * MONTHLY_TREND, 3);
  });

  it('fits each fold without its own rows, and the fold models agree on clean data', () => {
    const full = equations.solve();
    for (let fold = 0; fold < 5; fold++) {
      const without = equations.solve(fold);
      expect(without.scalars.age).toBeCloseTo(full.scalars.age, 2);
    }
    expect(equations.counts).toEqual([1000, 1000, 1000, 1000, 1000]);
  });

  it('no sale with a known built year (Sweden): the unknown-age effect is fixed at 0 and the intercept carries the level', () => {
    const unknownAge = new FoldedNormalEquations(design);
    for (const row of rows(3000)) unknownAge.add({ ...row, age: null, logPrice: row.logPrice - (row.age === null ? TRUTH.ageUnknown : ageCurve(row.age)) });
    // Singular without the fix: the solver split the level between the two arbitrarily (15.5 for age_unknown).
    const { scalars, levels } = unknownAge.solve();
    expect(scalars.age_unknown).toBe(0);
    expect(scalars.intercept + levels.segment.get('03:GRUNNEIENDOM')! + levels.municipality.get('0301')!).toBeCloseTo(TRUTH.intercept + SEGMENT['03:GRUNNEIENDOM'], 2);
    expect(scalars.log_size + levels.slope.get('GRUNNEIENDOM:11')!).toBeCloseTo(TRUTH.logSize, 2);
    expect(unknownAge.solve(2).scalars.age_unknown).toBe(0);
  });

  it('the month index is smooth where a month has no sales', () => {
    const sparse = new FoldedNormalEquations(design);
    for (const row of rows(3000).filter((r) => r.monthsBack !== 30)) sparse.add(row);
    const month = sparse.solve().levels.month;
    expect(month.get('30')).toBeCloseTo((month.get('29')! + month.get('31')!) / 2, 3);
  });
});
