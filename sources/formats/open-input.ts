import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import yauzl from 'yauzl';
import { InputFormatError } from './input-error.js';

export interface OpenedInput {
  /** Decompressed bytes of the data file. */
  stream: Readable;
  /** The data file's own name (the zip entry's, or the file's). */
  fileName: string;
  /** Uncompressed size when known, for progress. */
  totalBytes: number | null;
  /** Uncompressed bytes read so far. */
  bytesRead(): number;
}

function isZip(filePath: string, firstBytes: Buffer): boolean {
  return firstBytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || /\.zip$/i.test(filePath);
}

async function readHead(filePath: string): Promise<Buffer> {
  const stream = createReadStream(filePath, { start: 0, end: 3 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function counting(): { counter: Transform; count: () => number } {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  return { counter, count: () => bytes };
}

function openZip(filePath: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(filePath, { lazyEntries: true, autoClose: true, strictFileNames: false, validateEntrySizes: true }, (error, zip) => {
      if (error) reject(new InputFormatError(`${path.basename(filePath)} is not a readable zip archive (truncated or corrupt?): ${error.message}`));
      else resolve(zip);
    });
  });
}

async function findEntry(zip: yauzl.ZipFile, pattern: RegExp, label: string): Promise<yauzl.Entry> {
  const seen: string[] = [];
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) seen.push(entry.fileName);
      if (!entry.fileName.endsWith('/') && pattern.test(entry.fileName)) resolve(entry);
      else zip.readEntry();
    });
    zip.on('end', () => reject(new InputFormatError(`${label} holds no file matching ${pattern} (entries: ${seen.join(', ') || 'none'})`)));
    zip.on('error', (error: Error) => reject(new InputFormatError(`${label} is a corrupt zip archive: ${error.message}`)));
    zip.readEntry();
  });
}

/**
 * Opens a downloaded artifact as a byte stream of its data file: the matching entry of a zip
 * (whatever its folder and name), or the file itself.
 */
export async function openInput(filePath: string, zipEntry: RegExp): Promise<OpenedInput> {
  const label = path.basename(filePath);
  const head = await readHead(filePath);
  const { counter, count } = counting();
  if (!isZip(filePath, head)) {
    const size = (await stat(filePath)).size;
    return { stream: createReadStream(filePath, { highWaterMark: 1 << 20 }).pipe(counter), fileName: label, totalBytes: size, bytesRead: count };
  }
  const zip = await openZip(filePath);
  const entry = await findEntry(zip, zipEntry, label);
  const raw = await new Promise<Readable>((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(new InputFormatError(`cannot read ${entry.fileName} in ${label}: ${error.message}`));
      else resolve(stream);
    });
  });
  // A truncated or corrupt entry surfaces as a stream error; name the file in it.
  raw.on('error', (error) => counter.destroy(new InputFormatError(`${entry.fileName} in ${label} is truncated or corrupt: ${error.message}`)));
  return { stream: raw.pipe(counter), fileName: path.basename(entry.fileName), totalBytes: entry.uncompressedSize, bytesRead: count };
}
