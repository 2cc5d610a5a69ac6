/**
 * Entry point of the sample generator: `generateSample({ outDir, parcels | profile + scale, seed })`
 * writes, from the seed alone, a coherent area in the real register formats: the foundation's
 * address CSV and teig GML zips, every other register's file (register-files.ts) and
 * sample-manifest.json. Sizes come from a profile (profile.ts): `parcels` (one knob) or
 * `national` (each register at its national target times `scale`).
 *
 * All files of a country are written together (write-countries.ts): every writer streams the
 * same plan at its own pace, and a window of recently built parcels (index-window.ts) lets them
 * build each parcel, its buildings and companies once instead of once per file. Sweden runs in
 * a worker thread beside Norway when the code is compiled (after it under tsx or vitest).
 * Memory does not grow with the sample size. Same seed and size give byte-identical files; a directory that
 * already holds them (per its manifest and file sizes) is left alone. `night: n` writes the
 * registers as they stand n nights later (sample/night.ts): about 2 % of items differ per night.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ADDRESS_CSV_ZIP, TEIG_GML_ZIP } from './foundation-files.js';
import { GENERATOR_NAME, GENERATOR_VERSION, MANIFEST_NAME, manifestMatches, readManifest, writeManifest } from './manifest.js';
import { checkNight, nightPositions } from './night.js';
import { normalizeSeed } from './parcels.js';
import { samplePlans } from './plans.js';
import { resolveSampleSize, type SampleProfileName } from './profile.js';
import { FOUNDATION_FILES, SAMPLE_REGISTER_FILES } from './register-files.js';
import type { SwedenThreadInput, SwedenThreadMessage } from './sweden-thread.js';
import { writeNorway, writeSweden, type CountryFiles } from './write-countries.js';

export { sampleParcels, buildParcel, DEFAULT_PARCELS, DEFAULT_SEED } from './parcels.js';
export type { SampleParcelsOptions } from './parcels.js';
export type { SampleParcel, SampleUnit, SampleAddress, ParcelKind, Point } from './types.js';

export { ADDRESS_CSV_ENTRY, ADDRESS_CSV_NAME, ADDRESS_CSV_ZIP, TEIG_GML_ENTRY, TEIG_GML_NAME, TEIG_GML_ZIP } from './foundation-files.js';

export interface SampleOptions {
  outDir: string;
  /** The `parcels` profile's size: Norwegian teiger and Swedish properties (default 5000). */
  parcels?: number;
  /** `parcels` (default) or `national` (each register at its national target times `scale`). */
  profile?: SampleProfileName;
  /** The national profile's fraction of national size, (0, 1]; default 1. */
  scale?: number;
  seed?: string | number;
  /**
   * 0 (default): the sample as generated. n: the registers as they stand n nights later, each
   * night about 2 % of the items changed, removed or replaced (sample/night.ts).
   */
  night?: number;
  /** Deflate level of the zips and gzips, 1–9: default 1 for the national profile (speed), else 6. */
  compressionLevel?: number;
  /** Called every few thousand parcels: Norwegian teiger, then Swedish properties, each counted once. */
  onProgress?: (done: number, total: number) => void;
}

export interface SampleResult {
  skipped: boolean;
  outDir: string;
  profile: SampleProfileName;
  /** 1 for the `parcels` profile. */
  scale: number;
  night: number;
  /** Norwegian teiger of the plan (night 0; a later night holds about as many). */
  parcels: number;
  seProperties: number;
  addresses: number;
  /** Absolute paths. */
  files: { addressCsvZip: string; teigGmlZip: string };
  /** Absolute path of every file written, by source id (foundation sources included). */
  sourceFiles: Record<string, string>;
  /** Records written per file name. */
  rows: Record<string, number>;
  manifestPath: string;
  /**
   * Parcels and Swedish properties built while writing (absent when skipped): equal to the
   * sizes when every writer kept within the shared window, more when one fell behind.
   */
  built?: { parcels: number; seProperties: number };
}

const PROGRESS_EVERY_MS = 2000;

export { plansOfSample, samplePlans, type SampleIdentity } from './plans.js';

export async function generateSample(options: SampleOptions): Promise<SampleResult> {
  const outDir = resolve(options.outDir);
  const size = resolveSampleSize(options); // validates the size before touching the disk
  const { profile, scale, parcels, seProperties } = size;
  const seed = normalizeSeed(options.seed);
  const night = checkNight(options.night ?? 0);
  const compressionLevel = options.compressionLevel ?? (profile === 'national' ? 1 : 6);
  const files = { addressCsvZip: join(outDir, ADDRESS_CSV_ZIP), teigGmlZip: join(outDir, TEIG_GML_ZIP) };
  const manifestPath = join(outDir, MANIFEST_NAME);
  const sourceFiles: Record<string, string> = {};
  for (const [sourceId, fileName] of Object.entries(FOUNDATION_FILES)) sourceFiles[sourceId] = join(outDir, fileName);
  for (const file of SAMPLE_REGISTER_FILES) sourceFiles[file.sourceId] = join(outDir, file.fileName);
  const allNames = [ADDRESS_CSV_ZIP, TEIG_GML_ZIP, ...SAMPLE_REGISTER_FILES.map((file) => file.fileName)];
  const result = (skipped: boolean, addresses: number, rows: Record<string, number>): SampleResult => ({
    skipped, outDir, profile, scale, night, parcels, seProperties, addresses, files, sourceFiles, rows, manifestPath,
  });

  const { plan, sePlan } = samplePlans(size, seed, night);
  await mkdir(outDir, { recursive: true });
  const existing = await readManifest(manifestPath);
  if (existing && (await manifestMatches(existing, outDir, { seed, parcels, profile, scale, night, files: allNames }))) {
    return result(true, existing.addresses, existing.rows ?? {});
  }

  // A stale manifest must not vouch for a half-rewritten directory if this run dies midway.
  await rm(manifestPath, { force: true });
  // Items walked: on a later night the added ones too.
  const total = nightPositions(plan.night, parcels) + nightPositions(sePlan.night, seProperties);
  let lastReport = 0;
  const progress = (done: number, force = false) => {
    if (!options.onProgress || (!force && Date.now() - lastReport < PROGRESS_EVERY_MS)) return;
    lastReport = Date.now();
    options.onProgress(done, total);
  };

  // Norway here, Sweden beside it in a worker thread when one can load this module's code
  // (compiled, or under tsx), otherwise after Norway in this thread: the same files either way.
  let noDone = 0, seDone = 0;
  const report = () => progress(noDone + seDone);
  const countryOptions = { outDir, seed, compressionLevel };
  const sweden = swedenInThread({ size: { profile, scale: options.scale, parcels: options.parcels }, seed, outDir, compressionLevel, night }, (done) => {
    seDone = done;
    report();
  });
  let norway: CountryFiles;
  try {
    norway = await writeNorway(plan, sePlan, { ...countryOptions, onProgress: (done) => ((noDone = done), report()) });
  } catch (error) {
    await sweden?.cancel();
    throw error;
  }
  noDone = nightPositions(plan.night, parcels);
  report();
  const se = sweden ? await sweden.result : await writeSweden(plan, sePlan, { ...countryOptions, onProgress: (done) => ((seDone = done), report()) });
  progress(total, true);
  const rows = { ...norway.rows, ...se.rows };
  const written = { ...norway.written, ...se.written };
  const built = { parcels: norway.built, seProperties: se.built };
  const stats = { rows: norway.addresses };

  // Record names in a fixed order, whatever order the writers finished in.
  const ordered = <T>(values: Record<string, T>) => Object.fromEntries(allNames.map((name) => [name, values[name]]));
  await writeManifest(manifestPath, {
    generator: GENERATOR_NAME,
    version: GENERATOR_VERSION,
    seed,
    profile,
    scale,
    // Night 0's manifest stays as it was before nights existed.
    ...(night > 0 ? { night } : {}),
    parcels,
    seProperties,
    addresses: stats.rows,
    rows: ordered(rows),
    files: Object.fromEntries(allNames.map((name) => [name, written[name].sha256])),
    sizes: Object.fromEntries(allNames.map((name) => [name, written[name].bytes])),
  });
  return { ...result(false, stats.rows, ordered(rows)), built };
}

/**
 * The Swedish half in a worker thread, or null when this module runs as TypeScript (tsx,
 * vitest): a worker thread cannot load TypeScript there, so Sweden follows Norway instead.
 */
function swedenInThread(input: SwedenThreadInput, onProgress: (done: number) => void): { result: Promise<CountryFiles>; cancel: () => Promise<void> } | null {
  if (!import.meta.url.endsWith('.js')) return null;
  const worker = new Worker(new URL('./sweden-thread.js', import.meta.url), { workerData: input });
  const result = new Promise<CountryFiles>((resolve, reject) => {
    worker.on('message', (message: SwedenThreadMessage) => {
      if (message.type === 'progress') onProgress(message.done);
      else resolve(message.files);
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the Swedish sample thread stopped (exit code ${code}) before it finished`)));
  });
  result.catch(() => undefined); // a failure is awaited after Norway; until then it is not unhandled
  return { result, cancel: async () => void (await worker.terminate()) };
}
