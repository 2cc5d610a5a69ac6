import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { InputFormatError, readFailure, readFrom } from './input-error.js';
import { openZipEntry } from './zip-entry.js';
import { blankLinesExcept } from './line-records.js';
import type { ParsedRecord } from '../source-adapter.js';

/**
 * A register that arrives as several files (Bolagsverket's and SCB's bulk files, a code table
 * beside its extract, boundaries beside postal codes) is delivered as one tar bundle, so the
 * pipeline keeps its one-artifact-per-run rule (one sha256, one download, one ledger entry).
 * Tar rather than zip because tar is read front to back from the stream the stage activity
 * hands the parser; a zip needs random access. A member may itself be the register's own zip
 * download (e.g. `scb_bulkfil.zip` as fetched): it is spooled to a temporary file and each of
 * its data files becomes a member. Anything that is not a tar is a bundle of one member, so a
 * single file loads as it is.
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

function openZip(filePath: string, label: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(filePath, { lazyEntries: true, autoClose: true, validateEntrySizes: true }, (error, zip) => {
      if (error) reject(new InputFormatError(`${label} is not a readable zip archive (truncated or corrupt?): ${error.message}`));
      else resolve(zip);
    });
  });
}

/** The next entry of a lazily read zip, or null at its end. */
function nextEntry(zip: yauzl.ZipFile, label: string): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
    zip.once('entry', (entry: yauzl.Entry) => (cleanup(), resolve(entry)));
    zip.once('end', () => (cleanup(), resolve(null)));
    zip.once('error', (error: Error) => (cleanup(), reject(new InputFormatError(`${label} is a corrupt zip archive: ${error.message}`))));
    zip.readEntry();
  });
}

/**
 * Every data file of a zip member, in archive order: a register's zip may hold its file in
 * parts (SCB's `scb_bulkfil_JE_<time>_<n>.txt`), and reading only the first would drop the rest.
 * The member is spooled to a file first (yauzl needs random access): in the stage's scratch
 * folder (ParseContext.scratchDir) when there is one, else in a temporary folder.
 */
async function* zipMemberFiles(stream: Readable, name: string, dataFile: RegExp, scratchDir?: string): AsyncGenerator<{ fileName: string; stream: Readable }> {
  const dir = scratchDir ? await mkdtemp(path.join(scratchDir, 'zip-member-')) : await mkdtemp(path.join(os.tmpdir(), 'nordprop-bundle-'));
  try {
    const spooled = path.join(dir, name);
    await pipeline(stream, createWriteStream(spooled));
    const zip = await openZip(spooled, name);
    const seen: string[] = [];
    let found = 0;
    try {
      for (let entry = await nextEntry(zip, name); entry; entry = await nextEntry(zip, name)) {
        if (entry.fileName.endsWith('/')) continue;
        seen.push(entry.fileName);
        if (!dataFile.test(entry.fileName)) continue;
        found++;
        // Checked against the entry's CRC-32 and size as it ends (and on a reader's failure).
        const { stream: data } = await openZipEntry(zip, entry, name);
        yield { fileName: path.basename(entry.fileName), stream: data };
        await drain(data);
      }
    } finally {
      zip.close();
    }
    if (!found) throw new InputFormatError(`${name} holds no file matching ${dataFile} (entries: ${seen.join(', ') || 'none'})`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface BundleOptions {
  /** The members that are data files (the others are skipped). */
  dataFile: RegExp;
  /** Where a zip member is spooled (ParseContext.scratchDir); a temporary folder without it. */
  scratchDir?: string;
}

/**
 * Yields the bundle's files in order. Each member's stream must be read to its end (or
 * abandoned by returning) before the next one is asked for: tar is sequential.
 */
export async function* readBundle(input: Readable, fileName: string, options: BundleOptions): AsyncGenerator<BundleMember> {
  if (!isTarName(fileName)) {
    yield { name: fileName, ordinal: 0, stream: input };
    return;
  }
  const extract = tar.extract();
  const source = /\.(tar\.gz|tgz)$/i.test(fileName) ? input.pipe(createGunzip()) : input;
  // pipe() passes no error on: the input's (a corrupt zip entry) and gunzip's fail the
  // extraction, and the catch below reports them.
  if (source !== input) input.on('error', (error) => source.destroy(error));
  source.on('error', (error) => extract.destroy(error));
  source.pipe(extract);
  // A member cut short fails with streamx's "Stream was destroyed"; the extraction's own
  // error ("Unexpected end of data") says what happened.
  let extractError: unknown;
  extract.on('error', (error: unknown) => {
    extractError = error;
  });
  let ordinal = 0;
  try {
    for await (const entry of extract) {
      const name = path.basename(entry.header.name);
      if (entry.header.type !== 'file' || name.startsWith('.')) {
        entry.resume();
        continue;
      }
      // tar-stream's entries are streamx streams; the parsers expect Node's. A member cut
      // short fails in its reader's hands, so its errors are translated here too; a member of
      // a tar that was itself a zip entry is checked with that entry when its reader fails.
      const member = ordinal + 1;
      const bad = (error: unknown) => readFailure(extractError ?? error, { input, label: fileName, problem: 'is not a readable tar bundle (truncated or corrupt?)', at: `in member ${member} (${name})` });
      const stream = readFrom(Readable.from(memberBytes(entry, bad)), input);
      if (/\.zip$/i.test(name)) {
        for await (const inner of zipMemberFiles(stream, name, options.dataFile, options.scratchDir)) yield { name: inner.fileName, ordinal: ordinal++, stream: inner.stream };
        continue;
      }
      yield { name, ordinal: ordinal++, stream };
      await drain(stream); // whatever the reader left unread
    }
  } catch (error) {
    throw await readFailure(error, { input, label: fileName, problem: 'is not a readable tar bundle (truncated or corrupt?)', at: `in member ${ordinal + 1}` });
  }
  if (ordinal === 0) throw new InputFormatError(`${fileName} holds no files`);
}

async function* memberBytes(entry: AsyncIterable<unknown>, bad: (error: unknown) => Promise<Error>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of entry) yield chunk as Buffer;
  } catch (error) {
    throw await bad(error);
  }
}

async function drain(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return;
  await new Promise<void>((resolve) => stream.on('end', resolve).on('close', resolve).on('error', () => resolve()).resume());
}

/**
 * A member's bytes as its line parser reads them on a night (SourceAdapter.bundleRecords): the
 * lines whose bundle-wide position `keepPosition` refuses are blanked, keeping their numbers;
 * the whole member without `keepPosition`.
 */
export function keptLinesOf(member: BundleMember, options: { header: boolean; keepPosition?: (position: number) => boolean }): Readable {
  const { keepPosition } = options;
  if (!keepPosition) return member.stream;
  return readFrom(Readable.from(blankLinesExcept(member.stream, { header: options.header, keep: (line) => keepPosition(memberPosition(member, line)), label: member.name })), member.stream);
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

/**
 * The records of every member of a bundle (or of a lone file), each member read by
 * `readMember` by its name, positions and reject reasons made bundle-wide by inMember.
 */
export async function* readBundleRecords(
  input: Readable,
  fileName: string,
  options: BundleOptions,
  readMember: (name: string, stream: Readable) => AsyncIterable<ParsedRecord[]>,
): AsyncGenerator<ParsedRecord[]> {
  for await (const member of readBundle(input, fileName, options)) {
    yield* inMember(member, readMember(member.name, member.stream));
  }
}
