/** Repeated measurements and their summary: median, min and max. */

export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function spread(values: number[]): Spread {
  if (!values.length) throw new Error('no measurements to summarize');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], values };
}

/** Wall-clock seconds of `work`, on the monotonic clock. */
export async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; result: T }> {
  const started = process.hrtime.bigint();
  const result = await work();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, result };
}

/** Rows per second of one measurement. */
export const rate = (rows: number, seconds: number) => (seconds > 0 ? rows / seconds : 0);
