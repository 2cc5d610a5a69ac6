import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { InputFormatError } from './input-error.js';
import { openInput } from './open-input.js';
import type { ParsedRecord } from '../source-adapter.js';

/**
 * A register that arrives as several files (Bolagsverket's and SCB's bulk files, a code table
 * beside its extract, boundaries beside postal codes) is delivered as one tar bundle, so the
 * pipeline keeps its one-artifact-per-run rule (one sha256, one download, one ledger entry).
 * Tar rather than zip because tar is read front to back from the stream the stage activity
 * hands the parser; a zip needs random access. A member may itself be the register's own zip
 * download (e.g. `scb_bulkfil.zip` as fetched): it is spooled to a temporary file and its data
 * file opened with the shared zip reader. Anything that is not a tar is a bundle of one member,
 * so a single file loads as it is.
 */

export interface BundleMember {
  /** The member's base name (the data file's name when the member was a zip). */
  name: string;
  /** 0-based index of the member in the bundle. */
  ordinal: number;
  stream: Readable;
}

/** Positions stay unique and ascending across members: member ordinal × 10⁹ + line (or record) number. */
export const MEMBER_POSITION_STRIDE = 1_000_000_000;
export const memberPosition = (member: BundleMember, line: number) => member.ordinal * MEMBER_POSITION_STRIDE + line;

export const isTarName = (fileName: string) => /\.(tar|tar\.gz|tgz)$/i.test(fileName);

/** Spools a zip member to a temporary file (yauzl needs random access) and opens its data file. */
async function openZipMember(stream: Readable, name: string, dataFile: RegExp): Promise<{ fileName: string; stream: Readable; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-bundle-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const spooled = path.join(dir, name);
    await pipeline(stream, createWriteStream(spooled));
    const opened = await openInput(spooled, dataFile);
    return { fileName: opened.fileName, stream: opened.stream, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * Yields the bundle's files in order. Each member's stream must be read to its end (or
 * abandoned by returning) before the next one is asked for: tar is sequential.
 */
export async function* readBundle(input: Readable, fileName: string, options: { dataFile: RegExp }): AsyncGenerator<BundleMember> {
  if (!isTarName(fileName)) {
    yield { name: fileName, ordinal: 0, stream: input };
    return;
  }
  const extract = tar.extract();
  const source = /\.(tar\.gz|tgz)$/i.test(fileName) ? input.pipe(createGunzip()) : input;
  source.on('error', (error) => extract.destroy(new InputFormatError(`${fileName} is not a readable tar bundle: ${error.message}`)));
  source.pipe(extract);
  let ordinal = 0;
  try {
    for await (const entry of extract) {
      const name = path.basename(entry.header.name);
      if (entry.header.type !== 'file' || name.startsWith('.')) {
        entry.resume();
        continue;
      }
      // tar-stream's entries are streamx streams; the parsers expect Node's.
      const stream = Readable.from(entry);
      if (/\.zip$/i.test(name)) {
        const inner = await openZipMember(stream, name, options.dataFile);
        try {
          yield { name: inner.fileName, ordinal: ordinal++, stream: inner.stream };
          await drain(inner.stream);
        } finally {
          await inner.cleanup();
        }
        continue;
      }
      yield { name, ordinal: ordinal++, stream };
      await drain(stream); // whatever the reader left unread
    }
  } catch (error) {
    if (error instanceof InputFormatError) throw error;
    throw new InputFormatError(`${fileName} is not a readable tar bundle (truncated or corrupt?): ${(error as Error).message}`);
  }
  if (ordinal === 0) throw new InputFormatError(`${fileName} holds no files`);
}

async function drain(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return;
  await new Promise<void>((resolve) => stream.on('end', resolve).on('close', resolve).on('error', () => resolve()).resume());
}

/** A member's records with bundle-wide positions; a reject's reason names the member and its line. */
export async function* inMember(member: BundleMember, records: AsyncIterable<ParsedRecord[]>): AsyncGenerator<ParsedRecord[]> {
  for await (const batch of records) {
    yield batch.map((record) =>
      record.kind === 'row'
        ? { ...record, position: memberPosition(member, record.position) }
        : { ...record, position: memberPosition(member, record.position), reason: `${member.name} line ${record.position}: ${record.reason}` },
    );
  }
}
