/**
 * The sample files of every registered source, found from the registry alone: each source's
 * folder holds its sample writer (`sources/<country>/<id>/sample.ts`, exporting `sample`), so
 * adding a source adds its writer without a list here. `generateSample` writes the foundation's
 * two files (address CSV and teig GML) and, beside them, every other register's file into the
 * same directory and manifest. A writer derives everything from the plan and seed (never from
 * another file), so files stay coherent and deterministic.
 */
import type { Country } from '../lib/domain/country.js';
import { SOURCES } from '../sources/registry.js';
import type { SamplePlan } from './plan.js';
import type { SeSamplePlan } from './se/properties.js';
import { sampleOfSource, type SourceSample } from './source-sample.js';

export interface SampleWriteContext {
  /** Absolute path to write (the register's `inputFileName` inside the sample directory). */
  path: string;
  /** The Norwegian area plan (parcels, addresses) every Norwegian register builds on. */
  plan: SamplePlan;
  seed: string;
  parcels: number;
  /** The Swedish plan (properties, addresses, buildings); absent: `parcels` properties at the historical ratios. */
  sePlan?: SeSamplePlan;
  /** Deflate level of compressed outputs (zip, gzip); default 6. Any level gives the same content. */
  compressionLevel?: number;
}

export interface SampleRegisterFile {
  /** The source this file feeds. */
  sourceId: string;
  country: Country;
  /** File name in the sample directory; the source's `inputFileName`. */
  fileName: string;
  /** Writes the whole file (streamed, so memory stays flat); returns the records written. */
  write(context: SampleWriteContext): Promise<{ rows: number }>;
}

/** Each registered source's sample, in registry order. */
export const SOURCE_SAMPLES: ReadonlyMap<string, SourceSample> = new Map(await Promise.all(SOURCES.map(async (source) => [source.id, await sampleOfSource(source)] as const)));

/** The files the generator writes beside the foundation, in registry order. */
export const SAMPLE_REGISTER_FILES: SampleRegisterFile[] = [...SOURCE_SAMPLES.values()].flatMap((sample) => sample.files);

/** The foundation's files by the source that reads them (no-address: the address CSV zip). */
export const FOUNDATION_FILES: Readonly<Record<string, string>> = Object.fromEntries(
  [...SOURCE_SAMPLES].flatMap(([sourceId, sample]) => (sample.foundationFile ? [[sourceId, sample.foundationFile]] : [])),
);
