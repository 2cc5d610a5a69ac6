/**
 * Writes sample enheter / underenheter as Brønnøysund's full downloads: one gzipped JSON array
 * (`enheter_alle.json.gz`, `underenheter_alle.json.gz`), streamed record by record with
 * backpressure, byte-identical for the same seed and size.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { sampleCompanies, type CompanyKind } from './companies.js';

export const ENHETER_FILE = 'enheter_alle.json.gz';
export const UNDERENHETER_FILE = 'underenheter_alle.json.gz';

function* jsonArrayPieces(records: Iterable<unknown>, stats: { rows: number }): Generator<string> {
  yield '[';
  for (const record of records) yield `${stats.rows++ ? ',' : ''}\n${JSON.stringify(record)}`;
  yield '\n]\n';
}

export async function writeBusinessJson(context: SampleWriteContext, kind: CompanyKind): Promise<{ rows: number }> {
  const stats = { rows: 0 };
  const records = (function* () {
    for (const company of sampleCompanies(context.plan, kind)) yield company.record;
  })();
  await pipeline(Readable.from(jsonArrayPieces(records, stats)), createGzip({ level: 6 }), createWriteStream(context.path));
  return stats;
}

/** Sub-units first: the demo reads the enheter file, the adapter's `inputFileName`. */
export const BUSINESS_SAMPLE_FILES: SampleRegisterFile[] = [
  { sourceId: 'no-business', country: 'NO', fileName: UNDERENHETER_FILE, write: (context) => writeBusinessJson(context, 'underenhet') },
  { sourceId: 'no-business', country: 'NO', fileName: ENHETER_FILE, write: (context) => writeBusinessJson(context, 'enhet') },
];
