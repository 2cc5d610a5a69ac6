import { hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import streamArray from 'stream-json/streamers/stream-array.js';
import { readBundle } from '../../sources/formats/bundle.js';
import { gunzipIfCompressed } from '../../sources/formats/gzip-input.js';
import type { BrregServer, Kind } from './brreg-server.js';
import { ENHETER_FILE, UNDERENHETER_FILE } from './write-business-json.js';

/**
 * A sample night's business register as Brønnøysund's updates feed lists it: the units of the
 * later download that are new (`Ny`) or differ (`Endring`) from the earlier one's, and the units
 * gone from it (`Sletting`, as a full download marks them deleted), put into a BrregServer that
 * answers the feed and the units' lookups. So a benchmark can run no-business's night as the
 * nightly does, from the feed, instead of from the whole download. Memory: a hash per unit of
 * the earlier night and the changed units' records.
 */

type UnitRecord = Record<string, unknown> & { organisasjonsnummer: string };

const KIND_OF_MEMBER: Record<string, Kind> = { [ENHETER_FILE]: 'enheter', [UNDERENHETER_FILE]: 'underenheter' };

/** Every unit of a bundle of the two downloads, with its kind. */
async function* unitsOf(bundle: string): AsyncGenerator<{ kind: Kind; record: UnitRecord }> {
  for await (const member of readBundle(createReadStream(bundle), path.basename(bundle), { dataFile: /\.json(\.gz)?$/i })) {
    const kind = KIND_OF_MEMBER[member.name];
    if (!kind) throw new Error(`${bundle}: unexpected member ${member.name}`);
    const elements = (await gunzipIfCompressed(member.stream, member.name)).pipe(streamArray.withParserAsStream());
    for await (const { value } of elements as AsyncIterable<{ value: UnitRecord }>) yield { kind, record: value };
  }
}

const digest = (record: UnitRecord) => hash('sha1', JSON.stringify(record), 'hex');

/**
 * Puts the changes from `before` to `after` (two sample bundles, `enhetsregisteret.tar`) into
 * `server`'s feeds and units, dated now: after the earlier night's snapshot was loaded, so a
 * feed run that follows it reads them all.
 */
export async function feedBetween(server: BrregServer, before: string, after: string): Promise<{ new: number; changed: number; deleted: number }> {
  const earlier = new Map<string, { kind: Kind; digest: string }>();
  for await (const { kind, record } of unitsOf(before)) earlier.set(record.organisasjonsnummer, { kind, digest: digest(record) });
  const counts = { new: 0, changed: 0, deleted: 0 };
  for await (const { kind, record } of unitsOf(after)) {
    const was = earlier.get(record.organisasjonsnummer);
    earlier.delete(record.organisasjonsnummer);
    if (was?.digest === digest(record)) continue;
    server.put(kind, record);
    server.change(kind, record.organisasjonsnummer, was ? 'Endring' : 'Ny');
    counts[was ? 'changed' : 'new']++;
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const [organisasjonsnummer, { kind }] of earlier) {
    server.remove(kind, organisasjonsnummer, today);
    server.change(kind, organisasjonsnummer, 'Sletting');
    counts.deleted++;
  }
  return counts;
}
