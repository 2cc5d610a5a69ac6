import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SampleResult } from '../../sample/generate.js';
import { getSource } from '../../sources/registry.js';
import { readZip } from '../sample/helpers.js';

/** A source's file in a generated sample (its data entry, where the file is a zip), as text. */
export async function fileText(sample: SampleResult, sourceId: string): Promise<string> {
  const source = getSource(sourceId);
  const file = path.join(sample.outDir, source.inputFileName);
  const bytes = file.endsWith('.zip') ? [...(await readZip(file)).entries()].find(([name]) => source.zipEntry.test(name))![1] : await readFile(file);
  return bytes.toString('utf8');
}

/** The non-empty lines of a source's file in a generated sample, without their line endings. */
export async function fileLines(sample: SampleResult, sourceId: string): Promise<string[]> {
  return (await fileText(sample, sourceId)).split('\n').map((line) => line.replace(/\r$/, '')).filter((line) => line !== '');
}
