/**
 * Writes one country's sample files: every register of the country at once, streaming its plan
 * through a shared window of built items (index-window.ts), then each file's size and sha256.
 * Norway and Sweden have independent plans, so the generator can run them side by side (Sweden
 * in a worker thread, sweden-thread.ts) and use both cores.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { activateWindow, deactivateWindow, IndexWindow } from './index-window.js';
import { presentCount } from './night.js';
import { buildParcel, parcelsOfPlan } from './parcels.js';
import type { SamplePlan } from './plan.js';
import { SAMPLE_REGISTER_FILES, type SampleRegisterFile } from './register-files.js';
import { swedishPropertyAt, type SeSamplePlan } from './se/properties.js';
import { ADDRESS_CSV_ENTRY, ADDRESS_CSV_NAME, ADDRESS_CSV_ZIP, TEIG_GML_ENTRY, TEIG_GML_ZIP } from './foundation-files.js';
import { addressCsvPieces, type CsvStats } from './write-address-csv.js';
import { teigGmlPieces } from './write-teig-gml.js';
import { writeZip, type WrittenFile } from './zip-writer.js';

export interface CountryFiles {
  /** Records per file name. */
  rows: Record<string, number>;
  written: Record<string, WrittenFile>;
  /** Items built (teiger or properties): the item count when every writer kept within the window. */
  built: number;
  /** Norway: rows of the address CSV. */
  addresses: number;
}

export interface CountryWriteOptions {
  outDir: string;
  seed: string;
  compressionLevel: number;
  /** Items (teiger or properties) done so far, every couple of seconds. */
  onProgress?: (done: number) => void;
}

const PROGRESS_EVERY_MS = 2000;
/** Norwegian parcels carry addresses, buildings and companies; Swedish properties are lighter. */
const NORWAY_WINDOW = 8192;
const SWEDEN_WINDOW = 32768;

async function writeRegisters(files: SampleRegisterFile[], context: Omit<Parameters<SampleRegisterFile['write']>[0], 'path'>, outDir: string, out: CountryFiles): Promise<void> {
  await Promise.all(
    files.map(async (file) => {
      const path = join(outDir, file.fileName);
      out.rows[file.fileName] = (await file.write({ ...context, path })).rows;
      out.written[file.fileName] = await describeFile(path);
    }),
  );
}

async function withWindow<T>(window: IndexWindow<T>, options: CountryWriteOptions, work: () => Promise<void>): Promise<void> {
  activateWindow(window as IndexWindow<unknown>);
  const ticker = options.onProgress ? setInterval(() => options.onProgress!(window.highest + 1), PROGRESS_EVERY_MS) : undefined;
  try {
    await work();
  } finally {
    if (ticker) clearInterval(ticker);
    deactivateWindow(window as IndexWindow<unknown>);
  }
}

/** The teig and address zips and every Norwegian register. */
export async function writeNorway(plan: SamplePlan, sePlan: SeSamplePlan, options: CountryWriteOptions): Promise<CountryFiles> {
  const out: CountryFiles = { rows: {}, written: {}, built: 0, addresses: 0 };
  const { outDir, seed, compressionLevel } = options;
  const window = new IndexWindow((index) => buildParcel(plan, index), NORWAY_WINDOW);
  plan.window = window;
  const stats: CsvStats = { rows: 0 };
  try {
    await withWindow(window, options, async () => {
      await Promise.all([
        writeZip(join(outDir, TEIG_GML_ZIP), [{ name: TEIG_GML_ENTRY, pieces: () => teigGmlPieces(parcelsOfPlan(plan, { withAddresses: false })) }], { compressionLevel }).then((gml) => {
          out.written[TEIG_GML_ZIP] = gml;
          out.rows[TEIG_GML_ZIP] = presentCount(plan.night, plan.parcels);
        }),
        writeZip(join(outDir, ADDRESS_CSV_ZIP), [{ name: `${ADDRESS_CSV_NAME}/` }, { name: ADDRESS_CSV_ENTRY, pieces: () => addressCsvPieces(parcelsOfPlan(plan), stats) }], { compressionLevel }).then((csv) => {
          out.written[ADDRESS_CSV_ZIP] = csv;
          out.rows[ADDRESS_CSV_ZIP] = stats.rows;
        }),
        writeRegisters(SAMPLE_REGISTER_FILES.filter((file) => file.country === 'NO'), { plan, sePlan, seed, parcels: plan.parcels, compressionLevel }, outDir, out),
      ]);
    });
  } finally {
    plan.window = undefined;
  }
  out.built = window.built;
  out.addresses = stats.rows;
  return out;
}

/** Every Swedish register. */
export async function writeSweden(plan: SamplePlan, sePlan: SeSamplePlan, options: CountryWriteOptions): Promise<CountryFiles> {
  const out: CountryFiles = { rows: {}, written: {}, built: 0, addresses: 0 };
  const window = new IndexWindow((index) => swedishPropertyAt(sePlan, index), SWEDEN_WINDOW);
  sePlan.window = window;
  try {
    await withWindow(window, options, () =>
      writeRegisters(SAMPLE_REGISTER_FILES.filter((file) => file.country === 'SE'), { plan, sePlan, seed: options.seed, parcels: plan.parcels, compressionLevel: options.compressionLevel }, options.outDir, out),
    );
  } finally {
    sePlan.window = undefined;
  }
  out.built = window.built;
  return out;
}

export async function describeFile(path: string): Promise<WrittenFile> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), bytes: (await stat(path)).size };
}
