/**
 * `sample-manifest.json`: what a sample directory holds, and whether it can be reused.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import type { SampleProfileName } from './profile.js';

export const MANIFEST_NAME = 'sample-manifest.json';
export const GENERATOR_NAME = 'nordprop-sample';
/** Bump when the output for a given seed and size changes. */
export const GENERATOR_VERSION = 5;

export interface SampleManifest {
  generator: typeof GENERATOR_NAME;
  version: number;
  seed: string;
  /** Absent in manifests written before profiles: `parcels`. */
  profile?: SampleProfileName;
  /** The national profile's scale; 1 for `parcels`. */
  scale?: number;
  /** Later nights only (sample/night.ts); absent: night 0, the sample as generated. */
  night?: number;
  /** Norwegian teiger. */
  parcels: number;
  /** Swedish properties (absent before profiles: as many as `parcels`). */
  seProperties?: number;
  addresses: number;
  /** Records written per file name. */
  rows?: Record<string, number>;
  /** File name (relative to the directory) to sha256 hex. */
  files: Record<string, string>;
  /** File name to size in bytes: reuse is decided on sizes, hashing big files takes too long. */
  sizes: Record<string, number>;
}

export async function readManifest(path: string): Promise<SampleManifest | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<SampleManifest>;
    if (parsed.generator !== GENERATOR_NAME || typeof parsed.files !== 'object' || typeof parsed.sizes !== 'object') return null;
    return parsed as SampleManifest;
  } catch {
    return null;
  }
}

/**
 * True when the manifest was written by this generator version for this seed, profile, size and night, names
 * every expected file, and each file is on disk with the recorded size.
 */
export async function manifestMatches(
  manifest: SampleManifest,
  directory: string,
  expect: { seed: string; parcels: number; profile?: SampleProfileName; scale?: number; night?: number; files: readonly string[] },
): Promise<boolean> {
  if (manifest.version !== GENERATOR_VERSION || String(manifest.seed) !== expect.seed || manifest.parcels !== expect.parcels) return false;
  if ((manifest.night ?? 0) !== (expect.night ?? 0)) return false;
  if ((manifest.profile ?? 'parcels') !== (expect.profile ?? 'parcels') || (manifest.scale ?? 1) !== (expect.scale ?? 1)) return false;
  for (const name of expect.files) {
    if (typeof manifest.files[name] !== 'string' || typeof manifest.sizes[name] !== 'number') return false;
    try {
      const info = await stat(`${directory}/${name}`);
      if (!info.isFile() || info.size !== manifest.sizes[name]) return false;
    } catch {
      return false;
    }
  }
  return true;
}

export async function writeManifest(path: string, manifest: SampleManifest): Promise<void> {
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}
