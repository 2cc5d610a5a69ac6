import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { openInput } from '../../../sources/formats/open-input.js';
import { InputFormatError } from '../../../sources/formats/input-error.js';

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
    await expect(readAll(file)).rejects.toThrow(/matrikkelenAdresse\.csv in damaged\.zip is truncated or corrupt/);
  });

  it('fails a zip without a matching entry, listing what it holds', async () => {
    await expect(openInput(await writeZip('other.zip', true), /\.gml$/i)).rejects.toThrow(
      /other\.zip holds no file matching \/\\.gml\$\/i \(entries: folder\/README\.txt, folder\/matrikkelenAdresse\.csv\)/,
    );
  });
});
