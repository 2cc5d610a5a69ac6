/**
 * Entry point of the sample generator: `generateSample({ outDir, parcels | profile + scale, seed })`
 * writes, from the seed alone, a coherent area in the real register formats: the foundation's
 * address CSV and teig GML zips, every other register's file (register-files.ts) and
 * sample-manifest.json. Sizes come from a profile (profile.ts): `parcels` (one knob) or
 * `national` (each register at its national target times `scale`).
 *
 * The Norwegian files are written together, then the Swedish ones: every writer streams the
 * same plan at its own pace, and a window of recently built parcels (index-window.ts) lets them
 * build each parcel, its buildings and companies once instead of once per file. Memory does
 * not grow with the sample size. Same seed and size give byte-identical files; a directory that
 * already holds them (per its manifest and file sizes) is left alone.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GENERATOR_NAME, GENERATOR_VERSION, MANIFEST_NAME, manifestMatches, readManifest, writeManifest } from './manifest.js';
import { buildParcel, normalizeSeed, parcelsOfPlan } from './parcels.js';
import { activateWindow, deactivateWindow, IndexWindow } from './index-window.js';
import { resolveSampleSize, type SampleProfileName } from './profile.js';
import { swedishPropertyAt } from './se/properties.js';
import { samplePlans } from './plans.js';
import { addressCsvPieces, type CsvStats } from './write-address-csv.js';
import { teigGmlPieces } from './write-teig-gml.js';
import { writeZip, type WrittenFile } from './zip-writer.js';
import { SAMPLE_REGISTER_FILES } from './register-files.js';

export { sampleParcels, buildParcel, DEFAULT_PARCELS, DEFAULT_SEED } from './parcels.js';
export type { SampleParcelsOptions } from './parcels.js';
export type { SampleParcel, SampleUnit, SampleAddress, ParcelKind, Point } from './types.js';

export const ADDRESS_CSV_NAME = 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV';
export const ADDRESS_CSV_ZIP = `${ADDRESS_CSV_NAME}.zip`;
export const ADDRESS_CSV_ENTRY = `${ADDRESS_CSV_NAME}/matrikkelenAdresse.csv`;
export const TEIG_GML_NAME = 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML';
export const TEIG_GML_ZIP = `${TEIG_GML_NAME}.zip`;
export const TEIG_GML_ENTRY = `${TEIG_GML_NAME}.gml`;

export interface SampleOptions {
  outDir: string;
  /** The `parcels` profile's size: Norwegian teiger and Swedish properties (default 5000). */
  parcels?: number;
  /** `parcels` (default) or `national` (each register at its national target times `scale`). */
  profile?: SampleProfileName;
  /** The national profile's fraction of national size, (0, 1]; default 1. */
  scale?: number;
  seed?: string | number;
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
  /** Norwegian teiger. */
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
  const compressionLevel = options.compressionLevel ?? (profile === 'national' ? 1 : 6);
  const files = { addressCsvZip: join(outDir, ADDRESS_CSV_ZIP), teigGmlZip: join(outDir, TEIG_GML_ZIP) };
  const manifestPath = join(outDir, MANIFEST_NAME);
  const sourceFiles: Record<string, string> = { 'no-address': files.addressCsvZip, 'no-cadastre': files.teigGmlZip };
  for (const file of SAMPLE_REGISTER_FILES) sourceFiles[file.sourceId] = join(outDir, file.fileName);
  const allNames = [ADDRESS_CSV_ZIP, TEIG_GML_ZIP, ...SAMPLE_REGISTER_FILES.map((file) => file.fileName)];
  const result = (skipped: boolean, addresses: number, rows: Record<string, number>): SampleResult => ({
    skipped, outDir, profile, scale, parcels, seProperties, addresses, files, sourceFiles, rows, manifestPath,
  });

  const { plan, sePlan } = samplePlans(size, seed);
  await mkdir(outDir, { recursive: true });
  const existing = await readManifest(manifestPath);
  if (existing && (await manifestMatches(existing, outDir, { seed, parcels, profile, scale, files: allNames }))) {
    return result(true, existing.addresses, existing.rows ?? {});
  }

  // A stale manifest must not vouch for a half-rewritten directory if this run dies midway.
  await rm(manifestPath, { force: true });
  const total = parcels + seProperties;
  let lastReport = 0;
  const progress = (done: number, force = false) => {
    if (!options.onProgress || (!force && Date.now() - lastReport < PROGRESS_EVERY_MS)) return;
    lastReport = Date.now();
    options.onProgress(done, total);
  };

  let built = { parcels: 0, seProperties: 0 };
  const written: Record<string, WrittenFile> = {};
  const rows: Record<string, number> = {};
  const context = { plan, sePlan, seed, parcels, compressionLevel };
  const writeRegister = async (file: (typeof SAMPLE_REGISTER_FILES)[number]) => {
    const path = join(outDir, file.fileName);
    rows[file.fileName] = (await file.write({ ...context, path })).rows;
    written[file.fileName] = await describeFile(path);
  };

  // Norway: the teig and address zips and every Norwegian register, streaming the plan together.
  const window = new IndexWindow((index) => buildParcel(plan, index));
  plan.window = window;
  activateWindow(window);
  const ticker = setInterval(() => progress(window.highest + 1), PROGRESS_EVERY_MS);
  const stats: CsvStats = { rows: 0 };
  try {
    await Promise.all([
      writeZip(files.teigGmlZip, [{ name: TEIG_GML_ENTRY, pieces: () => teigGmlPieces(parcelsOfPlan(plan, { withAddresses: false })) }], { compressionLevel }).then((gml) => {
        written[TEIG_GML_ZIP] = gml;
        rows[TEIG_GML_ZIP] = parcels;
      }),
      writeZip(files.addressCsvZip, [{ name: `${ADDRESS_CSV_NAME}/` }, { name: ADDRESS_CSV_ENTRY, pieces: () => addressCsvPieces(parcelsOfPlan(plan), stats) }], { compressionLevel }).then((csv) => {
        written[ADDRESS_CSV_ZIP] = csv;
        rows[ADDRESS_CSV_ZIP] = stats.rows;
      }),
      ...SAMPLE_REGISTER_FILES.filter((file) => file.country === 'NO').map(writeRegister),
    ]);
    progress(parcels, true);
    plan.window = undefined;
    deactivateWindow(window);

    // Sweden, the same way.
    const seWindow = new IndexWindow((index) => swedishPropertyAt(sePlan, index), 32768);
    sePlan.window = seWindow;
    activateWindow(seWindow);
    clearInterval(ticker);
    const seTicker = setInterval(() => progress(parcels + seWindow.highest + 1), PROGRESS_EVERY_MS);
    try {
      await Promise.all(SAMPLE_REGISTER_FILES.filter((file) => file.country === 'SE').map(writeRegister));
    } finally {
      clearInterval(seTicker);
      sePlan.window = undefined;
      deactivateWindow(seWindow);
    }
    progress(total, true);
    built = { parcels: window.built, seProperties: seWindow.built };
  } finally {
    clearInterval(ticker);
    plan.window = undefined;
    deactivateWindow(window);
  }

  // Record names in a fixed order, whatever order the writers finished in.
  const ordered = <T>(values: Record<string, T>) => Object.fromEntries(allNames.map((name) => [name, values[name]]));
  await writeManifest(manifestPath, {
    generator: GENERATOR_NAME,
    version: GENERATOR_VERSION,
    seed,
    profile,
    scale,
    parcels,
    seProperties,
    addresses: stats.rows,
    rows: ordered(rows),
    files: Object.fromEntries(allNames.map((name) => [name, written[name].sha256])),
    sizes: Object.fromEntries(allNames.map((name) => [name, written[name].bytes])),
  });
  return { ...result(false, stats.rows, ordered(rows)), built };
}

async function describeFile(path: string): Promise<WrittenFile> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), bytes: (await stat(path)).size };
}
