/**
 * Entry point of the sample generator: `generateSample({ outDir, parcels, seed })` writes, from
 * the seed alone, a coherent area in the real register formats:
 * - Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip (46-column address CSV)
 * - Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip (Teig GML 3.2)
 * - sample-manifest.json
 *
 * Each file is one streaming pass over the parcels, every parcel regenerated from its index, so
 * memory does not grow with the sample size. Same seed and size give byte-identical files; a
 * directory that already holds them (per its manifest and file sizes) is left alone.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GENERATOR_NAME, GENERATOR_VERSION, MANIFEST_NAME, manifestMatches, readManifest, writeManifest } from './manifest.js';
import { DEFAULT_PARCELS, normalizeSeed, parcelsOfPlan } from './parcels.js';
import { planSample, type SamplePlan } from './plan.js';
import type { SampleParcel } from './types.js';
import { addressCsvPieces, type CsvStats } from './write-address-csv.js';
import { teigGmlPieces } from './write-teig-gml.js';
import { writeZip } from './zip-writer.js';

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
  parcels?: number;
  seed?: string | number;
  /** Called every few thousand parcels; `total` is 2 x parcels (one pass per file). */
  onProgress?: (done: number, total: number) => void;
}

export interface SampleResult {
  skipped: boolean;
  outDir: string;
  parcels: number;
  addresses: number;
  /** Absolute paths. */
  files: { addressCsvZip: string; teigGmlZip: string };
  manifestPath: string;
}

const PROGRESS_EVERY = 5000;

function* withProgress(
  parcels: Iterable<SampleParcel>,
  offset: number,
  total: number,
  onProgress: SampleOptions['onProgress'],
): Generator<SampleParcel> {
  let done = 0;
  for (const parcel of parcels) {
    yield parcel;
    done += 1;
    if (onProgress && done % PROGRESS_EVERY === 0) onProgress(offset + done, total);
  }
  onProgress?.(offset + done, total);
}

export async function generateSample(options: SampleOptions): Promise<SampleResult> {
  const outDir = resolve(options.outDir);
  const parcels = options.parcels ?? DEFAULT_PARCELS;
  const seed = normalizeSeed(options.seed);
  const files = { addressCsvZip: join(outDir, ADDRESS_CSV_ZIP), teigGmlZip: join(outDir, TEIG_GML_ZIP) };
  const manifestPath = join(outDir, MANIFEST_NAME);
  const result = (skipped: boolean, addresses: number): SampleResult => ({ skipped, outDir, parcels, addresses, files, manifestPath });

  const plan: SamplePlan = planSample(parcels, seed); // validates `parcels` before touching the disk
  await mkdir(outDir, { recursive: true });
  const existing = await readManifest(manifestPath);
  if (existing && (await manifestMatches(existing, outDir, { seed, parcels, files: [ADDRESS_CSV_ZIP, TEIG_GML_ZIP] }))) {
    return result(true, existing.addresses);
  }

  // A stale manifest must not vouch for a half-rewritten directory if this run dies midway.
  await rm(manifestPath, { force: true });
  const total = 2 * parcels;
  const gml = await writeZip(files.teigGmlZip, [
    {
      name: TEIG_GML_ENTRY,
      pieces: () => teigGmlPieces(withProgress(parcelsOfPlan(plan, { withAddresses: false }), 0, total, options.onProgress)),
    },
  ]);
  const stats: CsvStats = { rows: 0 };
  const csv = await writeZip(files.addressCsvZip, [
    { name: `${ADDRESS_CSV_NAME}/` },
    {
      name: ADDRESS_CSV_ENTRY,
      pieces: () => addressCsvPieces(withProgress(parcelsOfPlan(plan), parcels, total, options.onProgress), stats),
    },
  ]);

  await writeManifest(manifestPath, {
    generator: GENERATOR_NAME,
    version: GENERATOR_VERSION,
    seed,
    parcels,
    addresses: stats.rows,
    files: { [ADDRESS_CSV_ZIP]: csv.sha256, [TEIG_GML_ZIP]: gml.sha256 },
    sizes: { [ADDRESS_CSV_ZIP]: csv.bytes, [TEIG_GML_ZIP]: gml.bytes },
  });
  return result(false, stats.rows);
}
