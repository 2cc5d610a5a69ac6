import type { BenchResults } from './results.js';
import { rate, spread } from './stats.js';

/** The performance targets from the issue, judged on the measured figures. */

export const ADDRESS_TARGET_ROWS_PER_SECOND = 150_000;
export const WORKER_MEMORY_LIMIT_BYTES = 2 ** 30;

export interface TargetVerdict {
  target: string;
  measured: string;
  met: boolean | null;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (bytes: number) => `${int(bytes / 2 ** 20)} MiB`;

/** A worker run's footprint: its largest VmHWM, or the sampled RSS of its whole process tree when that was larger. */
export const footprint = (memory: { peakBytes: number; sampledTreeRssBytes: number }) => Math.max(memory.peakBytes, memory.sampledTreeRssBytes);

export function workerPeaks(results: BenchResults): number[] {
  return [...results.compared.flatMap((c) => c.loads), ...results.registers.flatMap((r) => r.loads), ...results.nightly].map((run) => footprint(run.memory));
}

/** The compared parcel load (Norway's Teig, or Sweden's GeoPackage in a Sweden-alone run). */
export const parcelLoad = (results: BenchResults) => results.compared.find((c) => c.table === 'parcel');
export const addressLoad = (results: BenchResults) => results.compared.find((c) => c.sourceId === 'no-address');

export function evaluateTargets(results: BenchResults): TargetVerdict[] {
  const peaks = spread(workerPeaks(results));
  const verdicts: TargetVerdict[] = [];
  const address = addressLoad(results);
  if (address) {
    const addressRates = spread(address.loads.map((run) => rate(run.rowsStaged, run.seconds)));
    verdicts.push({
      target: `addresses ≥ ${int(ADDRESS_TARGET_ROWS_PER_SECOND)} rows/s end to end`,
      measured: `${int(addressRates.median)} rows/s median (${int(addressRates.min)}–${int(addressRates.max)})`,
      met: addressRates.median >= ADDRESS_TARGET_ROWS_PER_SECOND,
    });
  }
  const parcels = parcelLoad(results);
  if (parcels) {
    const parcelSeconds = spread(parcels.loads.map((run) => run.seconds));
    const target = `parcels (\`${parcels.sourceId}\`) faster than ogr2ogr on the same file`;
    const ogr = parcels.ogr;
    if ('runs' in ogr) {
      const ogrSeconds = spread(ogr.runs.map((run) => run.seconds));
      verdicts.push({
        target,
        measured: `nordprop ${parcelSeconds.median.toFixed(1)} s vs ogr2ogr ${ogrSeconds.median.toFixed(1)} s (medians; ${(ogrSeconds.median / parcelSeconds.median).toFixed(2)}× ogr2ogr's speed)`,
        met: parcelSeconds.median < ogrSeconds.median,
      });
    } else {
      verdicts.push({ target, measured: `not measured (${ogr.skipped})`, met: null });
    }
  }
  verdicts.push({
    target: 'worker peak memory under 1 GiB',
    measured: `max ${mib(peaks.max)}, median ${mib(peaks.median)} (over ${peaks.values.length} measured worker runs)`,
    met: peaks.max < WORKER_MEMORY_LIMIT_BYTES,
  });
  return verdicts;
}
