/**
 * The area plan of a sample: which municipalities it covers, how many parcels each gets, and
 * where each municipality's parcel grid lies. Small (one entry per municipality), computed
 * once per run; every parcel is then placed from it by index alone.
 */
import { transformTo } from '../sources/geo/reproject.js';
import { allMunicipalitiesFeaturedFirst, isFeatured, selectMunicipalities, type Municipality } from './municipalities.js';
import { Channel, hashSeed, noise } from './random.js';
import { MAX_STREETS_PER_MUNICIPALITY } from './street-names.js';
import { apportion } from './apportion.js';
import type { IndexWindow } from './index-window.js';
import type { SampleNight } from './night.js';
import { PARCELS_NO_MIX, type NorwegianMix } from './profile.js';
import type { SampleParcel } from './types.js';

/** Parcels of a municipality are numbered in gård blocks of this many rows and columns. */
export const GARD_ROWS = 4;
export const GARD_COLS = 8;
/** A street runs along two grid rows (odd numbers on one side, even on the other) ... */
export const STREET_ROWS = 2;
/** ... and this many columns. */
export const STREET_COLS = 12;

export interface MunicipalityBlock {
  municipality: Municipality;
  firstParcel: number;
  count: number;
  cols: number;
  rows: number;
  /** Nominal cell size in metres; columns and rows vary between 0.8 and 1.25 of it. */
  cell: number;
  /** Offsets of the grid lines from the origin, metres (cols + 1 and rows + 1 entries). */
  colOffsets: Float64Array;
  rowOffsets: Float64Array;
  originEast: number;
  originNorth: number;
  gardsnummerBase: number;
  nynorsk: boolean;
  streetNameOffset: number;
}

export interface SamplePlan {
  seed: string;
  seedHash: number;
  parcels: number;
  blocks: MunicipalityBlock[];
  /** The ratios every per-teig draw reads (sample/profile.ts). */
  mix: NorwegianMix;
  /**
   * Set by the generator while its register writers stream this plan together: parcelsOfPlan
   * then hands them the same built parcels (sample/index-window.ts).
   */
  window?: IndexWindow<SampleParcel>;
  /** A later night's removed, replaced and changed teiger (sample/night.ts); absent on night 0. */
  night?: SampleNight;
}

export interface PlanOptions {
  /** Default: the `parcels` profile's historical ratios. */
  mix?: NorwegianMix;
  /** Spread over all 357 municipalities at any size (the national profile), not featured ones first. */
  allMunicipalities?: boolean;
}

export interface ParcelLocation {
  block: MunicipalityBlock;
  /** Index within the municipality. */
  local: number;
  row: number;
  col: number;
}

const FEATURED_WEIGHT = 4;
const toUtm33 = transformTo(4326, 25833);

function offsets(count: number, cell: number, seedHash: number, channel: number, key: number): Float64Array {
  const out = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) out[i + 1] = out[i] + cell * (0.8 + 0.45 * noise(seedHash, channel, key, i));
  return out;
}

export function planSample(parcels: number, seed: string, options: PlanOptions = {}): SamplePlan {
  if (!Number.isInteger(parcels) || parcels < 1) throw new RangeError(`parcels must be a positive whole number, got ${parcels}`);
  const seedHash = hashSeed(seed);
  const municipalities = options.allMunicipalities ? allMunicipalitiesFeaturedFirst() : selectMunicipalities(parcels);
  const counts = apportion(parcels, municipalities.map((m) => (isFeatured(m.kommunenummer) ? FEATURED_WEIGHT : 1)));
  const blocks: MunicipalityBlock[] = [];
  let first = 0;
  municipalities.forEach((municipality, i) => {
    const count = counts[i];
    if (count === 0) return;
    const key = municipality.ordinal;
    const cols = Math.ceil(Math.sqrt(count));
    const rows = Math.ceil(count / cols);
    const streets = Math.ceil(rows / STREET_ROWS) * Math.ceil(cols / STREET_COLS);
    if (streets > MAX_STREETS_PER_MUNICIPALITY) {
      throw new RangeError(`${count} parcels in ${municipality.kommunenavn} need more unique street names than the generator has`);
    }
    const urban = isFeatured(municipality.kommunenummer);
    const cell = urban ? 26 + 4 * noise(seedHash, Channel.cellSize, key) : 34 + 10 * noise(seedHash, Channel.cellSize, key);
    const colOffsets = offsets(cols, cell, seedHash, Channel.columnWidth, key);
    const rowOffsets = offsets(rows, cell, seedHash, Channel.rowHeight, key);
    const [east, north] = toUtm33(municipality.lon, municipality.lat);
    const nynorskShare = ['46', '15'].includes(municipality.county) ? 0.85 : ['50', '11'].includes(municipality.county) ? 0.35 : 0.08;
    blocks.push({
      municipality,
      firstParcel: first,
      count,
      cols,
      rows,
      cell,
      colOffsets,
      rowOffsets,
      originEast: Math.round(east - colOffsets[cols] / 2),
      originNorth: Math.round(north - rowOffsets[rows] / 2),
      gardsnummerBase: 1 + Math.floor(noise(seedHash, Channel.gardsnummerBase, key) * 120),
      nynorsk: noise(seedHash, Channel.nynorsk, key) < nynorskShare,
      streetNameOffset: Math.floor(noise(seedHash, Channel.streetName, key) * 700),
    });
    first += count;
  });
  return { seed, seedHash, parcels, blocks, mix: options.mix ?? PARCELS_NO_MIX };
}

export function locateParcel(plan: SamplePlan, index: number): ParcelLocation {
  if (!Number.isInteger(index) || index < 0 || index >= plan.parcels) throw new RangeError(`parcel ${index} is not in this sample`);
  const blocks = plan.blocks;
  let low = 0, high = blocks.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (blocks[mid].firstParcel <= index) low = mid;
    else high = mid - 1;
  }
  const block = blocks[low];
  const local = index - block.firstParcel;
  return { block, local, row: Math.floor(local / block.cols), col: local % block.cols };
}

/** The parcel index at a grid cell of a block, or -1 when the cell is empty (past the last parcel). */
export function parcelAt(block: MunicipalityBlock, row: number, col: number): number {
  if (row < 0 || col < 0 || row >= block.rows || col >= block.cols) return -1;
  const local = row * block.cols + col;
  return local < block.count ? block.firstParcel + local : -1;
}
