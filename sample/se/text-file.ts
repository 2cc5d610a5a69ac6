/**
 * Streams generated lines to a file in the register's encoding (UTF-8, or Latin-1 for SCB),
 * with backpressure, so a national-size sample never sits in memory; and a scratch folder for
 * the members of a tar bundle.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pacedReadable } from '../index-window.js';

const CHUNK_CHARS = 1 << 16;
/**
 * Lines (empty ones included) between two chunks at most: a sparse register (a line per
 * thousand properties) still hands back control often, so the generator can pace it with the
 * other writers (sample/index-window.ts). Chunk boundaries never change the file.
 */
const TICK_LINES = 256;

function* chunks(lines: Iterable<string>, encoding: 'utf8' | 'latin1'): Generator<Buffer> {
  let pending = '';
  let since = 0;
  for (const line of lines) {
    pending += line;
    if (pending.length >= CHUNK_CHARS || ++since >= TICK_LINES) {
      yield Buffer.from(pending, encoding); // empty when only empty lines came: a tick, dropped by pacedReadable
      pending = '';
      since = 0;
    }
  }
  if (pending) yield Buffer.from(pending, encoding);
}

/**
 * Writes `lines` (each with its own line end) and returns how many there were. A writer may
 * yield empty strings where an entity has no line (they write and count nothing) to let the
 * generator pace it.
 */
export async function writeLines(filePath: string, lines: Iterable<string>, encoding: 'utf8' | 'latin1' = 'utf8'): Promise<number> {
  let count = 0;
  const counted = function* () {
    for (const line of lines) {
      if (line) count++;
      yield line;
    }
  };
  await pipeline(pacedReadable(chunks(counted(), encoding)), createWriteStream(filePath));
  return count;
}

export async function withScratchDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-se-sample-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
