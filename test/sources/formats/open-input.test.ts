import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { openInput } from '../../../sources/formats/open-input.js';
import { InputFormatError } from '../../../sources/formats/input-error.js';
import { readHeaderedRecords } from '../../../sources/formats/delimited.js';
import { readTeigFeatures } from '../../../sources/no/cadastre/parse.js';
import { utf8Text } from '../../../sources/formats/text-encoding.js';
import { readUnquotedLines } from '../../../sources/formats/unquoted-csv.js';
import { expectInputFormatError, failure } from './input-failure.js';

let dir: string;
const text = 'lokalid;kommunenummer\n'.repeat(20_000);

async function writeZip(name: string, compress: boolean): Promise<string> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('readme'), 'folder/README.txt', { compress });
  zip.addBuffer(Buffer.from(text), 'folder/matrikkelenAdresse.csv', { compress });
  zip.end();
  const file = path.join(dir, name);
  await pipeline(zip.outputStream, createWriteStream(file));
  return file;
}

async function readAll(file: string): Promise<string> {
  const input = await openInput(file, /\.csv$/i);
  const chunks: Buffer[] = [];
  for await (const chunk of input.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-open-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openInput', () => {
  it('reads the matching entry of a deflated zip, whatever its folder', async () => {
    const file = await writeZip('deflated.zip', true);
    const input = await openInput(file, /\.csv$/i);
    expect(input).toMatchObject({ fileName: 'matrikkelenAdresse.csv', totalBytes: text.length });
    expect(await readAll(file)).toBe(text);
  });

  it('reads a stored (uncompressed) entry', async () => {
    expect(await readAll(await writeZip('stored.zip', false))).toBe(text);
  });

  it('reads a plain file as it is', async () => {
    const file = path.join(dir, 'plain.csv');
    await writeFile(file, text);
    expect(await readAll(file)).toBe(text);
  });

  it('fails a zip whose compressed data is damaged, naming the entry', async () => {
    const file = await writeZip('damaged.zip', true);
    const bytes = await readFile(file);
    const start = bytes.indexOf('matrikkelenAdresse.csv') + 'matrikkelenAdresse.csv'.length;
    for (let i = start + 10; i < start + 60; i++) bytes[i] ^= 0xff;
    await writeFile(file, bytes);
    await expect(readAll(file)).rejects.toThrow(InputFormatError);
    await expect(readAll(file)).rejects.toThrow(/^damaged\.zip: entry folder\/matrikkelenAdresse\.csv is corrupt: /);
  });

  it('fails a zip without a matching entry, listing what it holds', async () => {
    await expect(openInput(await writeZip('other.zip', true), /\.gml$/i)).rejects.toThrow(
      /other\.zip holds no file matching \/\\.gml\$\/i \(entries: folder\/README\.txt, folder\/matrikkelenAdresse\.csv\)/,
    );
  });

  it('fails a truncated zip and an empty one as InputFormatErrors', async () => {
    const bytes = await readFile(await writeZip('whole.zip', true));
    await writeFile(path.join(dir, 'truncated.zip'), bytes.subarray(0, Math.floor(bytes.length / 2)));
    await writeFile(path.join(dir, 'empty.zip'), Buffer.alloc(0));
    expectInputFormatError(await failure(() => openInput(path.join(dir, 'truncated.zip'), /\.csv$/i)), /^truncated\.zip is not a readable zip archive \(truncated or corrupt\?\)/);
    expectInputFormatError(await failure(() => openInput(path.join(dir, 'empty.zip'), /\.csv$/i)), /^empty\.zip is not a readable zip archive/);
  });
});

/** `count` digits of the data file changed in place (each to the next digit), as a damaged disk or transfer would. */
function changeDigits(bytes: Buffer, from: number, count: number): Buffer {
  const damaged = Buffer.from(bytes);
  let changed = 0;
  for (let i = from; changed < count; i++) {
    if (damaged[i] >= 0x30 && damaged[i] <= 0x39) {
      damaged[i] = 0x30 + ((damaged[i] - 0x30 + 1) % 10);
      changed++;
    }
  }
  return damaged;
}

describe('openInput checks every zip entry against its CRC-32 and size', () => {
  const coordinates = Array.from({ length: 5_000 }, (_, i) => `${1000 + i};0301;6643${String(i).padStart(4, '0')}.25;59712${String(i).padStart(3, '0')}.5;Øvre gate ${i}`).join('\n') + '\n';

  async function zipOf(name: string, compress: boolean): Promise<string> {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(coordinates), 'adresser.csv', { compress });
    zip.end();
    const file = path.join(dir, name);
    await pipeline(zip.outputStream, createWriteStream(file));
    return file;
  }

  /** Reads the data file as no-address does: lines split by the unquoted CSV reader. */
  async function readLines(file: string): Promise<number> {
    const input = await openInput(file, /\.csv$/i);
    let lines = 0;
    for await (const batch of readUnquotedLines(input.stream, { delimiter: ';', label: input.fileName })) lines += batch.length;
    return lines;
  }

  it('fails a STORED entry with 20 changed digits (same length, valid UTF-8, wrong CRC-32) instead of reading it', async () => {
    const file = await zipOf('stored-digits.zip', false);
    const bytes = await readFile(file);
    const data = bytes.indexOf('1000;0301;');
    await writeFile(file, changeDigits(bytes, data + 50_000, 20));
    expect(await readLines(await zipOf('stored-intact.zip', false))).toBe(5_000);
    const error = await failure(() => readLines(file));
    expectInputFormatError(error, /^stored-digits\.zip: entry adresser\.csv is corrupt: CRC-32 of the data is 0x[0-9a-f]{8}, the zip declares 0x[0-9a-f]{8}$/);
    // Raw stream too: the check is in the stream, not in a reader.
    expectInputFormatError(await failure(() => readAll(file)), /entry adresser\.csv is corrupt: CRC-32/);
  });

  it('reports a damaged STORED entry as corrupt even when the decoder fails first', async () => {
    const file = await zipOf('stored-latin1.zip', false);
    const bytes = await readFile(file);
    const at = bytes.indexOf('Øvre gate 2000');
    bytes[at] = 0xd8; // 'Ø' as Latin-1: the first byte of its UTF-8 pair replaced, an invalid sequence
    bytes[at + 1] = 0x20;
    await writeFile(file, bytes);
    const error = await failure(() => readLines(file));
    expectInputFormatError(error, /^stored-latin1\.zip: entry adresser\.csv is corrupt: CRC-32/);
    expect(((error as InputFormatError).original as Error).message).toMatch(/not valid UTF-8/);
  });

  it('reports every damaged DEFLATED entry as corrupt, never as the UTF-8 or parse error its garbage causes', async () => {
    const file = await zipOf('deflated-intact.zip', true);
    const bytes = await readFile(file);
    const local = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    expect(local).toBe(0);
    const header = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28); // where the compressed data starts
    const compressedSize = bytes.readUInt32LE(bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 20); // from the central directory
    expect(bytes.readUInt16LE(local + 8)).toBe(8); // DEFLATED
    const causes: string[] = [];
    // One flipped byte at a time, spread over the compressed data.
    for (let k = 1; k <= 40; k++) {
      const damaged = Buffer.from(bytes);
      damaged[header + Math.floor((compressedSize * k) / 41)] ^= 0x55;
      const name = `deflated-flip-${k}.zip`;
      await writeFile(path.join(dir, name), damaged);
      let lines: number | undefined;
      let error: Error | undefined;
      try {
        lines = await readLines(path.join(dir, name));
      } catch (e) {
        error = e as Error;
      }
      if (!error) {
        expect(lines, `flip ${k} read without error`).toBe(5_000); // only if inflate gave the data back intact
        continue;
      }
      expectInputFormatError(error, new RegExp(`^${name.replace(/\./g, '\\.')}: entry adresser\\.csv is corrupt: `));
      causes.push(((error as InputFormatError).original as Error | undefined)?.message ?? '');
    }
    // The decoder saw the garbage first in some of them: those are the ones this guards.
    expect(causes.some((cause) => /not valid UTF-8/.test(cause))).toBe(true);
  });

  async function zipOfText(name: string, entry: string, text: string): Promise<Buffer> {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(text), entry, { compress: false });
    zip.end();
    await pipeline(zip.outputStream, createWriteStream(path.join(dir, name)));
    return readFile(path.join(dir, name));
  }

  it('reports a damaged entry as corrupt when the parser fails first: a GML tag, a CSV header', async () => {
    // Files larger than a read chunk: a damage near the start reaches the parser long before
    // the entry's end (a small file's CRC-32 is checked before its one chunk is parsed).
    const fixture = readFileSync(fileURLToPath(new URL('../../fixtures/no/teig/oslo-25833.gml', import.meta.url)), 'utf8');
    const members = fixture.slice(fixture.indexOf('  <gml:featureMember>'), fixture.lastIndexOf('</gml:FeatureCollection>'));
    const gml = fixture.slice(0, fixture.indexOf('  <gml:featureMember>')) + members.repeat(60) + '</gml:FeatureCollection>\n';
    const zippedGml = await zipOfText('teig.zip', 'teig.gml', gml);
    const tag = zippedGml.indexOf('<app:Teig ', zippedGml.indexOf('<app:Teig ') + 1);
    zippedGml[tag + 1] = 0x20; // `< app:Teig`: not well-formed
    await writeFile(path.join(dir, 'teig.zip'), zippedGml);
    const gmlInput = await openInput(path.join(dir, 'teig.zip'), /\.gml$/);
    const gmlError = await failure(async () => {
      for await (const record of readTeigFeatures(gmlInput.stream)) void record;
    });
    expectInputFormatError(gmlError, /^teig\.zip: entry teig\.gml is corrupt: CRC-32/);
    expect(((gmlError as InputFormatError).original as Error).message).toMatch(/Malformed or truncated GML/);

    const csv = await zipOfText('csv.zip', 'data.csv', `a;b\n${'1;2\n'.repeat(100_000)}`);
    csv[csv.indexOf('a;b\n')] = 'x'.charCodeAt(0); // the header names a column that is not there
    await writeFile(path.join(dir, 'csv.zip'), csv);
    const csvInput = await openInput(path.join(dir, 'csv.zip'), /\.csv$/);
    const records = readHeaderedRecords(utf8Text(csvInput.stream, 'data.csv'), {
      delimiter: ';', quote: '"', label: 'data.csv', expected: 'a;b', required: ['a', 'b'] as const, optional: [] as const,
      toRow: (field) => [field('a') ?? null], isRowProblem: (e): e is Error => false,
    });
    const csvError = await failure(async () => {
      for await (const batch of records) void batch;
    });
    expectInputFormatError(csvError, /^csv\.zip: entry data\.csv is corrupt: CRC-32/);
    expect(((csvError as InputFormatError).original as Error).message).toMatch(/unknown header, missing column\(s\) a/);
  });

  it('reads intact entries, stored and deflated, to the last byte', async () => {
    expect(await readAll(await zipOf('intact-stored.zip', false))).toBe(coordinates);
    expect(await readAll(await zipOf('intact-deflated.zip', true))).toBe(coordinates);
  });
});
