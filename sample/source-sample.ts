/**
 * What a source's sample writer (`sources/<country>/<id>/sample.ts`) declares: the files the
 * generator writes for it. Kept apart from register-files.ts, which loads the writers: a writer
 * importing the loader at run time would wait on it forever (the loader awaits the writers).
 */
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
