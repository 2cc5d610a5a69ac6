import { stat } from 'node:fs/promises';
import path from 'node:path';
import yauzl from 'yauzl';
import { ADDRESS_CSV_ENTRY, TEIG_GML_ENTRY, generateSample } from '../sample/generate.js';
import type { SampleProfileName } from '../sample/profile.js';

/**
 * The benchmark's input: the deterministic sample registers at the requested size, generated
 * once (the generator leaves a directory alone when its manifest matches).
 */

export interface InputFile {
  /** The file read (a zip, or for a GeoPackage the file itself). */
  zipPath: string;
  /** The data file inside the zip (the file's own name when it is not a zip). */
  entry: string;
  zipped: boolean;
  zipBytes: number;
  entryBytes: number;
}

export interface BenchSample {
  dir: string;
  /** `national` (each register at its national target times `scale`) or `parcels`. */
  profile: SampleProfileName;
  scale: number;
  /** Norwegian teiger. */
  parcels: number;
  seProperties: number;
  addresses: number;
  /** Records per file, as the generator counted them. */
  rows: Record<string, number>;
  generated: boolean;
  generateSeconds: number;
  address: InputFile;
  teig: InputFile;
  /** Every sample file by the source it feeds. */
  sourceFiles: Record<string, string>;
}

function entrySize(zipPath: string, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    yauzl.open(zipPath, { lazyEntries: true, autoClose: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error(`cannot open ${zipPath}`));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName === name) {
          zip.close();
          resolve(entry.uncompressedSize);
        } else zip.readEntry();
      });
      zip.on('end', () => reject(new Error(`${zipPath} has no entry ${name}`)));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

async function describe(zipPath: string, entry: string): Promise<InputFile> {
  return { zipPath, entry, zipped: true, zipBytes: (await stat(zipPath)).size, entryBytes: await entrySize(zipPath, entry) };
}

/** An input read as it is (a GeoPackage is an SQLite file, not zipped). */
export async function describeFile(filePath: string): Promise<InputFile> {
  const bytes = (await stat(filePath)).size;
  return { zipPath: filePath, entry: path.basename(filePath), zipped: false, zipBytes: bytes, entryBytes: bytes };
}

/** `night`: a later night of the same sample (sample/night.ts); default 0, the sample as generated. */
export async function ensureSample(dir: string, size: { profile: SampleProfileName; scale: number; parcels: number | undefined; night?: number }, log: (line: string) => void): Promise<BenchSample> {
  const started = Date.now();
  let lastReport = 0;
  const result = await generateSample({
    outDir: dir,
    ...(size.profile === 'national' ? { profile: 'national', scale: size.scale } : { parcels: size.parcels }),
    seed: 'bench',
    night: size.night ?? 0,
    onProgress: (done, total) => {
      if (Date.now() - lastReport < 10_000) return;
      lastReport = Date.now();
      log(`sample: ${Math.round((100 * done) / total)}% (${done} of ${total} parcels and properties)`);
    },
  });
  return {
    dir: result.outDir,
    profile: result.profile,
    scale: result.scale,
    parcels: result.parcels,
    seProperties: result.seProperties,
    addresses: result.addresses,
    rows: result.rows,
    generated: !result.skipped,
    generateSeconds: (Date.now() - started) / 1000,
    address: await describe(result.files.addressCsvZip, ADDRESS_CSV_ENTRY),
    teig: await describe(result.files.teigGmlZip, TEIG_GML_ENTRY),
    sourceFiles: result.sourceFiles,
  };
}

/** How the report names the sample's size, so nothing smaller is called national. */
export function describeSampleSize(sample: Pick<BenchSample, 'profile' | 'scale' | 'parcels'>): string {
  if (sample.profile === 'national') return sample.scale === 1 ? 'national size (the national profile at scale 1)' : `${sample.scale} × national size (the national profile at scale ${sample.scale}, not national)`;
  return `a ${sample.parcels.toLocaleString('en')}-parcel smoke sample (the parcels profile, not national)`;
}
