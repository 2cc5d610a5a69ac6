import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import yauzl from 'yauzl';
import { InputFormatError } from './input-error.js';
import { openZipEntry } from './zip-entry.js';

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

/** Counts the bytes passing through. */
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
 * (whatever its folder and name), checked against its CRC-32 and size, or the file itself.
 */
export async function openInput(filePath: string, zipEntry: RegExp): Promise<OpenedInput> {
  const label = path.basename(filePath);
  const head = await readHead(filePath);
  if (!isZip(filePath, head)) {
    const { counter, count } = counting();
    const size = (await stat(filePath)).size;
    return { stream: createReadStream(filePath, { highWaterMark: 1 << 20 }).pipe(counter), fileName: label, totalBytes: size, bytesRead: count };
  }
  const zip = await openZip(filePath);
  const entry = await findEntry(zip, zipEntry, label);
  // A truncated or corrupt entry fails as a stream error, as a size or CRC-32 that differs
  // from the zip's, or (when a reader fails first) through readFailure's check of the entry.
  const { stream, bytesRead } = await openZipEntry(zip, entry, label);
  return { stream, fileName: path.basename(entry.fileName), totalBytes: entry.uncompressedSize, bytesRead };
}
