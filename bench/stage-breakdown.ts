import { hash } from 'node:crypto';
import { encodeCells } from '../lib/copy-text.js';
import { openInput } from '../sources/formats/open-input.js';
import { readTeigFeatures } from '../sources/no/cadastre/parse.js';
import { getSource } from '../sources/registry.js';
import type { ParsedRecord } from '../sources/source-adapter.js';
import { timed } from './stats.js';

/**
 * Where the stage phase's CPU time goes: the same input read in this process (no Temporal,
 * no database) by ever longer prefixes of the stage pipeline, each drained to the end. The
 * difference between two levels is the cost of the step the longer one adds; the pipeline's
 * measured stage phase minus the last level is what COPY into staging, backpressure and the
 * stage activity's bookkeeping add. Only the source adapter's public contract is used
 * (openInput, parse), so the breakdown follows the adapters as they change.
 */

export interface StageLevel {
  label: string;
  seconds: number;
  /** Records produced at this level (0 for the byte level). */
  records: number;
}

async function level(label: string, work: () => Promise<number>): Promise<StageLevel> {
  const { seconds, result } = await timed(work);
  return { label, seconds, records: result };
}

async function unzipOnly(sourceId: string, zipPath: string): Promise<number> {
  const input = await openInput(zipPath, getSource(sourceId).zipEntry);
  let bytes = 0;
  for await (const chunk of input.stream as AsyncIterable<Buffer>) bytes += chunk.length;
  return bytes >= 0 ? 0 : -1;
}

/** parse() yields records one by one or in batches, depending on the adapter contract's version. */
function asBatch(item: ParsedRecord | ParsedRecord[]): ParsedRecord[] {
  return Array.isArray(item) ? item : [item];
}

/** The adapter's parse (decode, tokenize, normalize, reproject), and optionally the COPY line and row hash per row. */
async function adapterRows(sourceId: string, zipPath: string, encode: boolean): Promise<number> {
  const source = getSource(sourceId);
  const input = await openInput(zipPath, source.zipEntry);
  let rows = 0;
  let chars = 0;
  const parsed = source.parse(input.stream, { fileName: input.fileName }) as AsyncIterable<ParsedRecord | ParsedRecord[]>;
  for await (const item of parsed) {
    for (const record of asBatch(item)) {
      if (record.kind !== 'row') continue;
      rows++;
      if (encode) {
        const cells = encodeCells(record.values);
        chars += `${record.position}\t${cells}\t${hash('sha1', cells, 'hex').slice(0, 32)}\n`.length;
      }
    }
  }
  return chars >= 0 ? rows : -1;
}

const ENCODE = '+ COPY text encoding and a row hash per row (no database)';

export async function addressStageBreakdown(zipPath: string): Promise<StageLevel[]> {
  return [
    await level('unzip (inflate the CSV entry)', () => unzipOnly('no-address', zipPath)),
    await level("+ decode, tokenize, normalize and reproject (the adapter's parse)", () => adapterRows('no-address', zipPath, false)),
    await level(ENCODE, () => adapterRows('no-address', zipPath, true)),
  ];
}

/** Any other source, through its adapter contract alone: reading the file, the adapter's parse, the COPY lines. */
export async function adapterStageBreakdown(sourceId: string, inputPath: string): Promise<StageLevel[]> {
  return [
    await level('read the input (inflate it if zipped)', () => unzipOnly(sourceId, inputPath)),
    await level("+ decode, normalize and reproject (the adapter's parse)", () => adapterRows(sourceId, inputPath, false)),
    await level(ENCODE, () => adapterRows(sourceId, inputPath, true)),
  ];
}

export async function teigStageBreakdown(zipPath: string): Promise<StageLevel[]> {
  return [
    await level('unzip (inflate the GML entry)', () => unzipOnly('no-cadastre', zipPath)),
    await level('+ UTF-8 decode and XML parse into Teig features (saxes)', async () => {
      const input = await openInput(zipPath, getSource('no-cadastre').zipEntry);
      let features = 0;
      for await (const record of readTeigFeatures(input.stream)) if (record.kind === 'feature') features++;
      return features;
    }),
    await level("+ units, reprojection and EWKT (the adapter's parse)", () => adapterRows('no-cadastre', zipPath, false)),
    await level(ENCODE, () => adapterRows('no-cadastre', zipPath, true)),
  ];
}
