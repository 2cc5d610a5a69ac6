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

function* chunks(lines: Iterable<string>, encoding: 'utf8' | 'latin1'): Generator<Buffer> {
  let pending = '';
  for (const line of lines) {
    pending += line;
    if (pending.length >= CHUNK_CHARS) {
      yield Buffer.from(pending, encoding);
      pending = '';
    }
  }
  if (pending) yield Buffer.from(pending, encoding);
}

/** Writes `lines` (each with its own line end) and returns how many there were. */
export async function writeLines(filePath: string, lines: Iterable<string>, encoding: 'utf8' | 'latin1' = 'utf8'): Promise<number> {
  let count = 0;
  const counted = function* () {
    for (const line of lines) {
      count++;
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
