import { describe, expect, it } from 'vitest';
import { coefficientOfDispersion, median, priceRelatedDifferential, valuationAccuracy } from '../../evaluations/valuation-metrics.js';

// Ratios 1.05, 0.85, 1.00, 1.25; errors 5 %, 15 %, 0 %, 25 %.
const SALES = [
  { price: 100, estimate: 105, low: 90, high: 110 },
  { price: 200, estimate: 170, low: 150, high: 190 },
  { price: 100, estimate: 100, low: 100, high: 100 },
  { price: 400, estimate: 500, low: 450, high: 550 },
];

describe('valuation accuracy', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('computes the ratio-study figures of a known set', () => {
    const a = valuationAccuracy(SALES);
    expect(a.count).toBe(4);
    expect(a.medianAbsolutePercentageError).toBeCloseTo(10, 10); // median of 0, 5, 15, 25
    expect(a.withinTenPercent).toBe(50);
    expect(a.withinTwentyPercent).toBe(75);
    // Median ratio 1.025; mean absolute deviation (0.025 + 0.175 + 0.025 + 0.225) / 4 = 0.1125.
    expect(a.cod).toBeCloseTo((100 * 0.1125) / 1.025, 10);
    // Mean ratio 1.0375 over Σ estimates / Σ prices = 875 / 800: the dear one is overvalued, PRD < 1.
    expect(a.prd).toBeCloseTo(1.0375 / (875 / 800), 10);
    // 100 in [90, 110] and 100 in [100, 100] (bounds included); 200 and 400 outside theirs.
    expect(a.intervalCoverage).toBe(50);
  });

  it('a perfect valuation has no error, no dispersion and a PRD of 1', () => {
    const perfect = SALES.map((s) => ({ ...s, estimate: s.price, low: s.price, high: s.price }));
    expect(valuationAccuracy(perfect)).toEqual({
      count: 4, medianAbsolutePercentageError: 0, withinTenPercent: 100, withinTwentyPercent: 100, cod: 0, prd: 1, intervalCoverage: 100,
    });
  });

  it('regressive estimates (cheap overvalued, dear undervalued) give a PRD above 1', () => {
    const regressive = [{ price: 100, estimate: 130 }, { price: 1000, estimate: 800 }];
    expect(priceRelatedDifferential(regressive)).toBeGreaterThan(1.03);
    expect(coefficientOfDispersion([1, 1, 1])).toBe(0);
  });

  it('refuses an empty set', () => {
    expect(() => valuationAccuracy([])).toThrow(/no valued sales/);
  });
});
