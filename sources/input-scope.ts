/**
 * The scope rules an adapter's `scopeOf` picks from: which live rows one of its inputs
 * replaces. Whatever the rule, a register's national download and its change feed replace the
 * whole country (activities/validate.ts).
 */
import path from 'node:path';
import type { InputScope, SourceAdapter } from './source-adapter.js';

/** The register has no regional extracts: every input is the whole country. */
export function wholeCountry(): InputScope {
  return 'country';
}

/** Any input other than the national download is a regional extract (Lantmäteriet's GeoPackages, delivered per municipality). */
export function stagedMunicipalities(): InputScope {
  return 'staged-municipalities';
}

/**
 * Geonorge names a file's coverage by municipality number, 0000 being all of Norway
 * (`Basisdata_0000_Norge_…`, `Basisdata_0301_Oslo_…`); nordprop's exchange files borrow the
 * convention in both countries (`Grunnbok_0000_Norge.jsonl`, `detaljplaner_0000_sverige.jsonl`).
 * Such a name is national; any other replaces only the municipalities the file holds.
 */
export function nationalByFileName(input: string): InputScope {
  return /(^|[_\-/])0000_/.test(path.basename(input)) ? 'country' : 'staged-municipalities';
}

/**
 * Whether a run of `source` on `input` replaces the whole country: by its rule, or as its
 * national download or change feed, or as a file named as the national download is (the
 * configured input folder's, NORDPROP_INPUT_DIR, where a nightly reads it from).
 */
export function inputCoversCountry(source: SourceAdapter, input: string): boolean {
  return !!source.increment?.accepts(input) || input === source.defaultInput || path.basename(input) === source.inputFileName || source.scopeOf(input) === 'country';
}
