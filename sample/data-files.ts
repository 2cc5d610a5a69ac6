/**
 * The committed data files in sample/data (real public samples, municipality lists, anchor
 * points; see its README). One lookup for every reader, so they are found both from the source
 * tree (tsx) and from dist/sample/… (the files are not copied to dist).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The absolute path of `sample/data/<name>`. */
export function sampleDataFile(name: string): string {
  // This module is sample/data-files.ts, or dist/sample/data-files.js two levels below the root.
  for (const relative of [`./data/${name}`, `../../sample/data/${name}`]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`sample data file ${name} not found next to ${fileURLToPath(import.meta.url)}`);
}

/** The rows of a small unquoted CSV data file, without its header line and blank lines. */
export function readSampleCsvRows(name: string): string[][] {
  const lines = readFileSync(sampleDataFile(name), 'utf8').split('\n').filter((line) => line.trim() !== '');
  // None of the files quotes anything (no municipality name contains a comma).
  return lines.slice(1).map((line) => line.split(','));
}
