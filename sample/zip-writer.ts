/**
 * Writes a zip whose file entries are produced lazily from text pieces, with backpressure all
 * the way: yazl pulls from a Readable over the generator only as fast as deflate and the disk
 * take it, so memory stays flat however large the entry. The archive is byte-identical for the
 * same content (fixed DOS timestamp, fixed modes, no extended timestamp field).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { pacedReadable } from './index-window.js';

export interface ZipEntry {
  /** Path inside the archive; a directory entry ends with `/`. */
  name: string;
  /** Text pieces of a file entry (omit for a directory). Pulled lazily. */
  pieces?: () => Iterable<string>;
}

export interface WrittenFile {
  bytes: number;
  sha256: string;
}

/** DOS timestamps are local time: build the date from local fields so every time zone writes the same bytes. */
const FIXED_MTIME = () => new Date(2024, 0, 1, 0, 0, 0);
const CHUNK_CHARS = 1 << 16;

function* batched(pieces: Iterable<string>): Generator<Buffer> {
  let pending = '';
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= CHUNK_CHARS) {
      yield Buffer.from(pending, 'utf8');
      pending = '';
    }
  }
  if (pending.length > 0) yield Buffer.from(pending, 'utf8');
}

class Sha256Counter extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

/**
 * Writes the archive to `path` (via a temporary name, renamed when complete). `compressionLevel`
 * is deflate's 1–9 (default 6): a lower level writes faster and larger, with the same content.
 */
export async function writeZip(path: string, entries: readonly ZipEntry[], options: { compressionLevel?: number } = {}): Promise<WrittenFile> {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  const counter = new Sha256Counter();
  const partial = `${path}.partial`;
  const written = pipeline(output, counter, createWriteStream(partial));
  try {
    for (const entry of entries) {
      const entryOptions = { mtime: FIXED_MTIME(), forceDosTimestamp: true };
      if (entry.name.endsWith('/')) {
        zip.addEmptyDirectory(entry.name, entryOptions);
        continue;
      }
      const source = pacedReadable(batched(entry.pieces ? entry.pieces() : []), { objectMode: false, highWaterMark: CHUNK_CHARS });
      source.on('error', (error) => output.destroy(error));
      zip.addReadStream(source, entry.name, { ...entryOptions, compressionLevel: options.compressionLevel ?? 6 });
    }
    zip.end();
    await written;
    await rename(partial, path);
  } catch (error) {
    output.destroy();
    await rm(partial, { force: true });
    throw error;
  }
  return { bytes: counter.bytes, sha256: counter.hash.digest('hex') };
}
