import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { readFailure, readFrom } from './input-error.js';

/**
 * Registers that serve gzipped files without saying so in the name (Brønnøysund's `lastned`
 * answers `application/vnd.brreg…+gzip`) are recognised by the gzip magic bytes instead. The
 * first bytes are read ahead and put back, so the caller still gets one stream from the start.
 */

/** The stream's first `count` bytes (fewer if it is shorter) and a stream that still starts at byte 0. */
export async function peekBytes(input: Readable, count: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < count) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* replay(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: head.subarray(0, count), stream: readFrom(Readable.from(replay(), { objectMode: false }), input) };
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/** The decompressed bytes of a gzip stream, or the stream itself when it is not gzip. A truncated or corrupt gzip fails as an InputFormatError. */
export async function gunzipIfCompressed(input: Readable, label: string): Promise<Readable> {
  const { head, stream } = await peekBytes(input, 2);
  if (!head.equals(GZIP_MAGIC)) return stream;
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  let compressed = 0;
  stream.on('data', (chunk: Buffer) => {
    compressed += chunk.length;
  });
  pipeline(stream, gunzip, () => undefined); // an input error destroys gunzip, which the loop below sees
  async function* inflated(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of gunzip) yield chunk as Buffer;
    } catch (error) {
      // zlib reports a cut-off file as "unexpected end of file" when the input ends.
      throw await readFailure(error, { input, label, problem: 'is a truncated or corrupt gzip file', at: `after ${compressed} compressed bytes` });
    }
  }
  return readFrom(Readable.from(inflated(), { objectMode: false }), input);
}
