import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { SampleRegisterFile } from '../../../sample/register-files.js';
import type { SamplePlan } from '../../../sample/plan.js';
import type { ParsedRecord, SourceAdapter } from '../../../sources/source-adapter.js';
import { tempDir } from '../helpers.js';

/** Writes a sample register file and reads it back through its source's own parser. */
export async function writeAndParse(file: SampleRegisterFile, source: SourceAdapter, plan: SamplePlan) {
  const path = `${await tempDir(file.sourceId)}/${file.fileName}`;
  const { rows } = await file.write({ path, plan, seed: plan.seed, parcels: plan.parcels });
  const records: ParsedRecord[] = [];
  for await (const batch of source.parse(createReadStream(path), { fileName: file.fileName })) records.push(...batch);
  return { path, rows, records, bytes: await readFile(path) };
}

export const staged = (records: ParsedRecord[], names: string[]) =>
  records.flatMap((r) => (r.kind === 'row' ? [Object.fromEntries(names.map((name, i) => [name, r.values[i]]))] : []));
