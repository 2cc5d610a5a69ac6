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
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GENERATOR_NAME, GENERATOR_VERSION, MANIFEST_NAME, manifestMatches, readManifest, writeManifest } from './manifest.js';
import { DEFAULT_PARCELS, normalizeSeed, parcelsOfPlan } from './parcels.js';
import { planSample, type SamplePlan } from './plan.js';
import type { SampleParcel } from './types.js';
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
  /** Absolute path of every file written, by source id (foundation sources included). */
  sourceFiles: Record<string, string>;
  /** Records written per file name. */
  rows: Record<string, number>;
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
  const sourceFiles: Record<string, string> = { 'no-address': files.addressCsvZip, 'no-cadastre': files.teigGmlZip };
  for (const file of SAMPLE_REGISTER_FILES) sourceFiles[file.sourceId] = join(outDir, file.fileName);
  const allNames = [ADDRESS_CSV_ZIP, TEIG_GML_ZIP, ...SAMPLE_REGISTER_FILES.map((file) => file.fileName)];
  const result = (skipped: boolean, addresses: number, rows: Record<string, number>): SampleResult => ({ skipped, outDir, parcels, addresses, files, sourceFiles, rows, manifestPath });

  const plan: SamplePlan = planSample(parcels, seed); // validates `parcels` before touching the disk
  await mkdir(outDir, { recursive: true });
  const existing = await readManifest(manifestPath);
  if (existing && (await manifestMatches(existing, outDir, { seed, parcels, files: allNames }))) {
    return result(true, existing.addresses, existing.rows ?? {});
  }

  // A stale manifest must not vouch for a half-rewritten directory if this run dies midway.
  await rm(manifestPath, { force: true });
  const total = (2 + SAMPLE_REGISTER_FILES.length) * parcels;
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

  const written: Record<string, WrittenFile> = { [ADDRESS_CSV_ZIP]: csv, [TEIG_GML_ZIP]: gml };
  const rows: Record<string, number> = { [ADDRESS_CSV_ZIP]: stats.rows, [TEIG_GML_ZIP]: parcels };
  for (const [position, file] of SAMPLE_REGISTER_FILES.entries()) {
    const path = join(outDir, file.fileName);
    rows[file.fileName] = (await file.write({ path, plan, seed, parcels })).rows;
    written[file.fileName] = await describeFile(path);
    options.onProgress?.((3 + position) * parcels, total);
  }

  await writeManifest(manifestPath, {
    generator: GENERATOR_NAME,
    version: GENERATOR_VERSION,
    seed,
    parcels,
    addresses: stats.rows,
    rows,
    files: Object.fromEntries(Object.entries(written).map(([name, file]) => [name, file.sha256])),
    sizes: Object.fromEntries(Object.entries(written).map(([name, file]) => [name, file.bytes])),
  });
  return result(false, stats.rows, rows);
}

async function describeFile(path: string): Promise<WrittenFile> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), bytes: (await stat(path)).size };
}
