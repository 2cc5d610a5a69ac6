/**
 * Seeded randomness for the sample generator.
 *
 * Two kinds, both pure functions of the seed:
 * - `parcelRng(seed, index)`: a seedrandom (Alea) stream per parcel, for everything that belongs
 *   to one parcel only (its units, addresses, dates). Parcel i never needs parcel i-1.
 * - `noise(...)`: a stateless integer hash of (seed, channel, keys). Things two parcels must
 *   agree on without sharing state (a grid vertex both neighbours use, the kind of a
 *   neighbouring parcel) are read from it, so either side computes identical values.
 */
import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';

export type Rng = () => number;

export function parcelRng(seed: string, index: number): Rng {
  return seedrandom.alea(`${seed}#${index}`);
}

/** FNV-1a of the seed text, as the base of every `noise` call. */
export function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function mix(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) fixed by the seed hash, a channel and up to three integer keys. */
export function noise(seedHash: number, channel: number, a = 0, b = 0, c = 0): number {
  let h = mix(seedHash ^ Math.imul(channel + 1, 0x9e3779b1));
  h = mix(h ^ Math.imul(a + 0x632be5ab, 0x85ebca6b));
  h = mix(h ^ Math.imul(b + 0x1b873593, 0xc2b2ae35));
  h = mix(h ^ Math.imul(c + 0x27d4eb2f, 0x165667b1));
  return h / 4294967296;
}

/** Channels of `noise`, one per decision, so no two decisions read the same number. */
export const Channel = {
  vertexX: 1,
  vertexY: 2,
  hEdgeCount: 3,
  hEdgeT1: 4,
  hEdgeT2: 5,
  hEdgeP1: 6,
  hEdgeP2: 7,
  vEdgeCount: 8,
  vEdgeT1: 9,
  vEdgeT2: 10,
  vEdgeP1: 11,
  vEdgeP2: 12,
  columnWidth: 13,
  rowHeight: 14,
  cellSize: 15,
  parcelKind: 16,
  parcelHole: 17,
  bruksnummerOffset: 18,
  gardsnummerBase: 19,
  streetName: 20,
  streetCode: 21,
  placeName: 22,
  nynorsk: 23,
  organisation: 24,
  tettsted: 25,
  landParcel: 26,
} as const;

export function intBetween(rng: Rng, low: number, high: number): number {
  return low + Math.floor(rng() * (high - low + 1));
}

/** A day from 1 January of `fromYear` to 30 December of `toYear`, as `YYYY-MM-DD`. */
export function dateBetween(rng: Rng, fromYear: number, toYear: number): string {
  const from = Date.UTC(fromYear, 0, 1);
  const days = Math.floor(rng() * ((Date.UTC(toYear, 11, 31) - from) / 86_400_000));
  return new Date(from + days * 86_400_000).toISOString().slice(0, 10);
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

/** Index drawn from unnormalised weights. */
export function weightedIndex(rng: Rng, weights: readonly number[]): number {
  let total = 0;
  for (const w of weights) total += w;
  let r = rng() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}

const NAMESPACE = Buffer.from('6f1c1c4e9b2a4d0e8a57c0ffee5a3b10', 'hex');

/** A name-based (version 5, SHA-1) UUID, as Kartverket's own UUIDs are. */
export function deterministicUuid(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name).digest();
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
