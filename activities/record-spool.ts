import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { LineSet, type RecordSpool } from '../sources/formats/line-records.js';

/**
 * A night's changed records, written while the hashing pass reads the file
 * (sources/formats/line-records.ts and gml-feature-records.ts, RecordSpool), so that the parser
 * reads them from a file of their own instead of the whole file unzipped and scanned a second
 * time (blankLinesExcept, keepFeatures). At 0.05 × national the second pass over no-building's
 * Bygning file took 2.2 s of a 4.7 s stage (docs/scaling.md). A GML spool holds the header, the
 * changed features and the trailer; a line spool every line of the file with the unchanged ones
 * left empty, so that each record keeps its line number (a byte or two an unchanged line).
 *
 * A record is spooled when the first 48 bits of its hash are not among the published hashes',
 * held sorted in memory (8 bytes each: 34 MB for 4.2 M national buildings). The stage's own
 * choice of changed records stays the database's anti-join; the spool is used only when it
 * holds exactly those (a 48-bit collision, or a run that published in between, falls back to
 * the second pass).
 *
 * A night that changed much (a register that rewrote every feature, a new attribute throughout)
 * would spool the whole file unzipped into the worker's data folder: several gigabytes for a
 * national GML file. Once more than a quarter of the records hashed so far go to the spool, it is
 * given up (removed, no more written) and the parser reads the file a second time instead; by
 * then parsing a quarter of the file outweighs that second unzip and scan.
 */

/** The first 48 bits of a record's hash (hex, as the hashers give it), as a number (exact below 2⁵³); the published ones are read as bytes. */
const prefixOf = (hex: string) => parseInt(hex.slice(0, 12), 16);

/** COPY's binary format (PostgreSQL docs, "Binary Format"): an 11-byte signature, flags, and a header extension of the length that follows them. */
const COPY_SIGNATURE_BYTES = 11;
const COPY_HEADER_FIXED_BYTES = COPY_SIGNATURE_BYTES + 4 + 4;
/** A tuple of one uuid: its field count (2 bytes), the field's length (4) and its 16 bytes. */
const UUID_TUPLE_BYTES = 2 + 4 + 16;

/**
 * The published hashes' prefixes of `sourceId`, sorted. Read in COPY's binary format, each
 * tuple of a fixed size, so no row becomes a string: 1.1 s for the 1.94 M records of
 * no-matrikkel-detail at 0.25 × national, where their text (and a count first) took 1.4–1.9 s.
 */
async function publishedPrefixes(client: pg.PoolClient, sourceId: string): Promise<Float64Array> {
  let prefixes = new Float64Array(1 << 16);
  let filled = 0;
  // The source's id is ours (the registry's), not input: quoted as a literal for COPY, which takes no parameters.
  const copy = client.query(copyTo(`COPY (SELECT record_hash FROM source_record WHERE source_id = '${sourceId.replace(/'/g, "''")}') TO STDOUT (FORMAT binary)`));
  let carried: Buffer = Buffer.alloc(0);
  let headerRead = false;
  let ended = false;
  for await (const chunk of copy) {
    const bytes = carried.length ? Buffer.concat([carried, chunk as Buffer]) : (chunk as Buffer);
    let at = 0;
    if (!headerRead) {
      if (bytes.length < COPY_HEADER_FIXED_BYTES) {
        carried = bytes;
        continue;
      }
      at = COPY_HEADER_FIXED_BYTES + bytes.readInt32BE(COPY_SIGNATURE_BYTES + 4);
      headerRead = true;
    }
    while (!ended && bytes.length - at >= 2) {
      if (bytes.readInt16BE(at) === -1) {
        ended = true;
        at += 2;
        break;
      }
      if (bytes.length - at < UUID_TUPLE_BYTES) break;
      if (bytes.readInt16BE(at) !== 1 || bytes.readInt32BE(at + 2) !== 16) throw new Error(`published hashes of ${sourceId}: unexpected COPY tuple at byte ${at}`);
      if (filled === prefixes.length) {
        const grown = new Float64Array(prefixes.length * 2);
        grown.set(prefixes);
        prefixes = grown;
      }
      prefixes[filled++] = bytes.readUIntBE(at + 6, 6);
      at += UUID_TUPLE_BYTES;
    }
    carried = bytes.subarray(at);
  }
  if (!ended) throw new Error(`published hashes of ${sourceId}: the COPY ended without its trailer`);
  return prefixes.subarray(0, filled).sort();
}

function has(sorted: Float64Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] === value) return true;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

export interface ChangedRecordSpool extends RecordSpool {
  /** The spooled file, named as the data file so the parser's messages name it. */
  readonly filePath: string;
  /** Closes the file; true when it holds exactly `changed`'s records. */
  finish(changed: LineSet): boolean;
  remove(): Promise<void>;
}

/** When a spool is given up: more than `share` of the records hashed so far spooled, once `afterRecords` were hashed. */
export interface SpoolLimit {
  share: number;
  afterRecords: number;
}

export const SPOOL_LIMIT: SpoolLimit = { share: 0.25, afterRecords: 50_000 };

/** A spool of the records whose hash `sourceId` has not published, in `folder` (the stage's scratch folder); none before its first publish. */
export async function openRecordSpool(
  client: pg.PoolClient,
  sourceId: string,
  fileName: string,
  folder: string,
  limit: SpoolLimit = SPOOL_LIMIT,
): Promise<ChangedRecordSpool | undefined> {
  const published = await publishedPrefixes(client, sourceId);
  if (published.length === 0) return undefined;
  const filePath = path.join(folder, path.basename(fileName));
  let fd: number | undefined = openSync(filePath, 'w');
  // A bit a position, as the stage's own choice (LineSet): a night that changed much costs no more.
  const spooled = new LineSet();
  let spooledCount = 0;
  let hashedCount = 0;
  let givenUp = false;
  const giveUp = () => {
    closeSync(fd!);
    fd = undefined;
    givenUp = true;
    rmSync(filePath, { force: true });
    console.warn(
      `nordprop: ${sourceId}: ${spooledCount} of the first ${hashedCount} records changed, more than ${limit.share * 100} %; ` +
        'the parser reads the changed records from the file again instead of a copy written aside',
    );
  };
  return {
    filePath,
    keep(number, hash) {
      hashedCount++;
      if (givenUp || has(published, prefixOf(hash))) return false;
      spooled.add(number);
      spooledCount++;
      if (hashedCount >= limit.afterRecords && spooledCount > limit.share * hashedCount) {
        giveUp();
        return false;
      }
      return true;
    },
    write(bytes) {
      if (givenUp) return;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd!, bytes, at);
    },
    finish(changed) {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      if (givenUp) return false;
      let count = 0;
      for (const position of changed) {
        if (!spooled.has(position)) return false;
        count++;
      }
      return count === spooledCount;
    },
    async remove() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      await rm(filePath, { force: true });
    },
  };
}
