/**
 * Accuracy of valuations against the prices the properties actually fetched, as assessors
 * report it (IAAO Standard on Ratio Studies): the ratio of each estimate to its sale price, and
 * - median absolute percentage error, share within ±10 % and ±20 %;
 * - COD, coefficient of dispersion: the mean absolute deviation of the ratios from their median,
 *   in percent of the median (uniformity; IAAO asks ≤ 10–15 for homes);
 * - PRD, price-related differential: mean ratio over the sale-weighted mean ratio (Σ estimates ÷
 *   Σ prices); above 1.03 the dear properties are undervalued relative to the cheap (regressive),
 *   below 0.98 the reverse;
 * - coverage: the share of prices inside the stated [low, high] interval.
 */
export interface ValuedSale {
  price: number;
  estimate: number;
  low: number;
  high: number;
}

export interface ValuationAccuracy {
  count: number;
  medianAbsolutePercentageError: number;
  withinTenPercent: number;
  withinTwentyPercent: number;
  cod: number;
  prd: number;
  intervalCoverage: number;
}

export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const share = (values: readonly boolean[]) => values.filter(Boolean).length / values.length;

/** Coefficient of dispersion of the ratios, in percent. */
export function coefficientOfDispersion(ratios: readonly number[]): number {
  const middle = median(ratios);
  return (100 * mean(ratios.map((r) => Math.abs(r - middle)))) / middle;
}

/** Price-related differential: mean ratio ÷ (Σ estimates ÷ Σ prices). */
export function priceRelatedDifferential(sales: readonly Pick<ValuedSale, 'price' | 'estimate'>[]): number {
  const weighted = sales.reduce((sum, s) => sum + s.estimate, 0) / sales.reduce((sum, s) => sum + s.price, 0);
  return mean(sales.map((s) => s.estimate / s.price)) / weighted;
}

export function valuationAccuracy(sales: readonly ValuedSale[]): ValuationAccuracy {
  if (!sales.length) throw new Error('no valued sales to evaluate');
  const errors = sales.map((s) => Math.abs(s.estimate / s.price - 1));
  return {
    count: sales.length,
    medianAbsolutePercentageError: 100 * median(errors),
    withinTenPercent: 100 * share(errors.map((e) => e <= 0.1)),
    withinTwentyPercent: 100 * share(errors.map((e) => e <= 0.2)),
    cod: coefficientOfDispersion(sales.map((s) => s.estimate / s.price)),
    prd: priceRelatedDifferential(sales),
    intervalCoverage: 100 * share(sales.map((s) => s.price >= s.low && s.price <= s.high)),
  };
}
