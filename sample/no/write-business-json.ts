/**
 * Writes sample enheter / underenheter as Brønnøysund's full downloads: one gzipped JSON array
 * each (`enheter_alle.json.gz`, `underenheter_alle.json.gz`), streamed record by record with
 * backpressure, byte-identical for the same seed and size.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { writeTar } from '../tar-writer.js';
import { sampleCompanies, type CompanyKind } from './companies.js';
import { pacedReadable } from '../index-window.js';

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
  await pipeline(pacedReadable(jsonArrayPieces(records, stats)), createGzip({ level: context.compressionLevel ?? 6 }), createWriteStream(context.path));
  return stats;
}

/**
 * The demo's input: both downloads in one tar (the pipeline's bundle of a register that
 * publishes several files), so a nightly over the sample directory loads enheter and
 * underenheter in one run. The members are the real downloads' names and formats.
 */
export const BUSINESS_BUNDLE_FILE = 'enhetsregisteret.tar';

async function writeBusinessBundle(context: SampleWriteContext): Promise<{ rows: number }> {
  const parts = await mkdtemp(path.join(path.dirname(context.path), '.enhetsregisteret-'));
  try {
    // Both at once: they read the same parcels' companies, which the generator then builds once.
    const [main, sub] = await Promise.all([
      writeBusinessJson({ ...context, path: path.join(parts, ENHETER_FILE) }, 'enhet'),
      writeBusinessJson({ ...context, path: path.join(parts, UNDERENHETER_FILE) }, 'underenhet'),
    ]);
    await writeTar(context.path, [ENHETER_FILE, UNDERENHETER_FILE].map((name) => ({ name, file: path.join(parts, name) })));
    return { rows: main.rows + sub.rows };
  } finally {
    await rm(parts, { recursive: true, force: true });
  }
}

export const BUSINESS_SAMPLE_FILES: SampleRegisterFile[] = [
  { sourceId: 'no-business', country: 'NO', fileName: BUSINESS_BUNDLE_FILE, write: writeBusinessBundle },
];
