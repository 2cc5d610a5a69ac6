/**
 * The Swedish half of a sample, in a worker thread: generate.ts starts it beside the Norwegian
 * half (the plans are independent), so generation uses both cores. Rebuilds the same plans from
 * the size and seed, writes the Swedish files, and posts progress and the result.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { samplePlans } from './plans.js';
import { resolveSampleSize, type SampleSizeOptions } from './profile.js';
import { writeSweden } from './write-countries.js';

export interface SwedenThreadInput {
  size: SampleSizeOptions;
  seed: string;
  outDir: string;
  compressionLevel: number;
  /** 0: the sample as generated; later nights: sample/night.ts. */
  night: number;
}

export type SwedenThreadMessage =
  | { type: 'progress'; done: number }
  | { type: 'done'; files: Awaited<ReturnType<typeof writeSweden>> };

const input = workerData as SwedenThreadInput;
const { plan, sePlan } = samplePlans(resolveSampleSize(input.size), input.seed, input.night);
const files = await writeSweden(plan, sePlan, {
  outDir: input.outDir,
  seed: input.seed,
  compressionLevel: input.compressionLevel,
  onProgress: (done) => parentPort!.postMessage({ type: 'progress', done } satisfies SwedenThreadMessage),
});
parentPort!.postMessage({ type: 'done', files } satisfies SwedenThreadMessage);
