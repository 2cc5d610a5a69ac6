import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
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

/** Counts the bytes passing through; with `expected`, a stream that ends short (or long) is an error. */
function counting(expected?: () => { bytes: number; error: (actual: number) => Error } | undefined): { counter: Transform; count: () => number } {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      const check = expected?.();
      callback(check && check.bytes !== bytes ? check.error(bytes) : null);
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
  let declared: { bytes: number; error: (actual: number) => Error } | undefined;
  const { counter, count } = counting(() => declared);
  if (!isZip(filePath, head)) {
    const size = (await stat(filePath)).size;
    return { stream: createReadStream(filePath, { highWaterMark: 1 << 20 }).pipe(counter), fileName: label, totalBytes: size, bytesRead: count };
  }
  const zip = await openZip(filePath);
  const entry = await findEntry(zip, zipEntry, label);
  const deflated = entry.compressionMethod === 8;
  const raw = await new Promise<Readable>((resolve, reject) => {
    // Inflated here rather than by yauzl: 1 MB output chunks instead of zlib's 16 KB halve the
    // time to inflate a national register and mean far fewer chunks downstream.
    zip.openReadStream(entry, { decompress: deflated ? false : null } as yauzl.ZipFileOptions, (error, stream) => {
      if (error) reject(new InputFormatError(`cannot read ${entry.fileName} in ${label}: ${error.message}`));
      else resolve(deflated ? stream.pipe(createInflateRaw({ chunkSize: 1 << 20 })).on('error', (e) => stream.destroy(e)) : stream);
    });
  });
  // A truncated or corrupt entry surfaces as a stream error, or as fewer bytes than the zip
  // declares; name the file either way.
  const corrupt = (detail: string) => new InputFormatError(`${entry.fileName} in ${label} is truncated or corrupt: ${detail}`);
  raw.on('error', (error) => counter.destroy(corrupt(error.message)));
  declared = { bytes: entry.uncompressedSize, error: (actual) => corrupt(`${actual} bytes inflated, the zip declares ${entry.uncompressedSize}`) };
  return { stream: raw.pipe(counter), fileName: path.basename(entry.fileName), totalBytes: entry.uncompressedSize, bytesRead: count };
}
