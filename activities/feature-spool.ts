import { closeSync, openSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { FeatureSpool } from '../sources/formats/gml-feature-records.js';
import { linesOf, type LineSet } from '../sources/formats/line-records.js';

/**
 * A GML night's changed features, written while the hashing pass reads the file
 * (sources/formats/gml-feature-records.ts, FeatureSpool), so that the parser reads them from a
 * small file instead of the whole GML unzipped and scanned a second time (keepFeatures). At
 * 0.05 × national the second pass over no-building's Bygning file took 2.2 s of a 4.7 s stage
 * (docs/scaling.md).
 *
 * A feature is spooled when the first 48 bits of its hash are not among the published hashes',
 * held sorted in memory (8 bytes each: 34 MB for 4.2 M national buildings). The stage's own
 * choice of changed features stays the database's anti-join; the spool is used only when it
 * holds exactly those (a 48-bit collision, or a run that published in between, falls back to
 * the second pass).
 */

/** The first 48 bits of a hash in hex (uuid text or plain), as a number (exact below 2⁵³). */
const prefixOf = (hex: string) => parseInt(hex.length === 36 ? hex.slice(0, 8) + hex.slice(9, 13) : hex.slice(0, 12), 16);

/** The published hashes' prefixes of `sourceId`, sorted. */
async function publishedPrefixes(client: pg.PoolClient, sourceId: string): Promise<Float64Array> {
  const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM source_record WHERE source_id = $1`, [sourceId]);
  const prefixes = new Float64Array(Number(count.rows[0].n));
  let filled = 0;
  // The source's id is ours (the registry's), not input: quoted as a literal for COPY, which takes no parameters.
  const copy = client.query(copyTo(`COPY (SELECT record_hash FROM source_record WHERE source_id = '${sourceId.replace(/'/g, "''")}') TO STDOUT`));
  for await (const lines of linesOf(copy, 'published hashes')) {
    for (const [, line] of lines) {
      if (line.length === 0 || filled === prefixes.length) continue;
      prefixes[filled++] = prefixOf(line.toString('latin1'));
    }
  }
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

export interface ChangedFeatureSpool extends FeatureSpool {
  /** The spooled file, named as the data file so the parser's messages name it. */
  readonly filePath: string;
  /** Closes the file; true when it holds exactly `changed`'s features. */
  finish(changed: LineSet): boolean;
  remove(): Promise<void>;
}

/** A spool of the features whose hash `sourceId` has not published, in `folder` (the stage's scratch folder); none before its first publish. */
export async function openFeatureSpool(client: pg.PoolClient, sourceId: string, fileName: string, folder: string): Promise<ChangedFeatureSpool | undefined> {
  const published = await publishedPrefixes(client, sourceId);
  if (published.length === 0) return undefined;
  const filePath = path.join(folder, path.basename(fileName));
  let fd: number | undefined = openSync(filePath, 'w');
  const spooled: number[] = [];
  return {
    filePath,
    keep(number, hash) {
      if (has(published, prefixOf(hash))) return false;
      spooled.push(number);
      return true;
    },
    write(bytes) {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd!, bytes, at);
    },
    finish(changed) {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      let i = 0;
      for (const line of changed) if (spooled[i++] !== line) return false;
      return i === spooled.length;
    },
    async remove() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      await rm(filePath, { force: true });
    },
  };
}
