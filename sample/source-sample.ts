/**
 * What a source's sample writer (`sources/<country>/<id>/sample.ts`) declares, the files the
 * generator writes for it, and how one is loaded from the source's folder. Kept apart from
 * register-files.ts, which loads them all while it is imported: a writer importing that module
 * at run time would wait on it forever.
 */
import { sourceFolder } from '../sources/registry.js';
import type { SourceAdapter } from '../sources/source-adapter.js';
import type { SampleRegisterFile } from './register-files.js';

export interface SourceSample {
  /** The files the generator writes for the source; empty for a foundation source. */
  files: SampleRegisterFile[];
  /**
   * The foundation file the source reads (the address CSV or teig GML zip): the generator writes
   * the foundation itself, before and beside every register (write-countries.ts).
   */
  foundationFile?: string;
}

/** The source's files among a writer's several (one writer builds several sources' files from the same items). */
export function filesOf(sourceId: string, files: readonly SampleRegisterFile[]): SourceSample {
  return { files: files.filter((file) => file.sourceId === sourceId) };
}

/** A registered source's sample writer, loaded from its folder; a source without one is a clear error. */
export async function sampleOfSource(source: Pick<SourceAdapter, 'id' | 'country'>): Promise<SourceSample> {
  const file = `${sourceFolder(source)}/sample.ts`;
  let loaded: { sample?: SourceSample };
  try {
    // A specifier built at run time from the registry (no list of writers to keep in step).
    const specifier = `../${sourceFolder(source)}/sample.js`;
    loaded = (await import(/* @vite-ignore */ specifier)) as { sample?: SourceSample };
  } catch (error) {
    throw new Error(`the sample writer of ${source.id}, ${file}, could not be loaded (is it missing?): ${(error as Error).message}`);
  }
  const sample = loaded.sample;
  if (!sample || !Array.isArray(sample.files)) throw new Error(`${file} does not export \`sample\` (its files, or the foundation file it reads)`);
  if (!sample.foundationFile && sample.files.length === 0) throw new Error(`${file} writes no file for ${source.id}`);
  for (const written of sample.files) {
    if (written.sourceId !== source.id || written.country !== source.country) throw new Error(`${file} writes a file of ${written.sourceId}, not of ${source.id}`);
  }
  return sample;
}
