/**
 * The hidden price model of the sample: what a registered sale fetches, for both countries.
 *
 * It is deliberately not of the valuation model's form (derive/valuations), so the evaluation
 * in docs/derived/valuation-evaluation.md measures a model against a world it does not know:
 * - location: a smooth amenity field over the map (a regional swell of tens of kilometres and a
 *   neighbourhood ripple of a few hundred metres) times a municipality effect and a city premium;
 * - size with diminishing returns: price grows with s0·ln(1 + area/s0), not with a power of area;
 * - an age curve that falls for the first decades and recovers for old, characterful stock;
 * - the property's use and, for houses, a plot premium that saturates;
 * - a market cycle over time: a trend with a slow wave, different in each country;
 * - multiplicative log-normal noise (σ = 0.09): two identical properties sold the same day
 *   do not fetch the same price.
 *
 * A pure function of the seed, the property, the day and one uniform draw from the caller's
 * stream (the caller's stream advances exactly as before prices were modelled).
 */
import seedrandom from 'seedrandom';
import type { Country } from '../lib/domain/country.js';
import { hashSeed, noise } from './random.js';

export type PriceUse = 'HOUSE' | 'FLAT' | 'HOLIDAY' | 'COMMERCIAL' | 'INDUSTRIAL' | 'OTHER' | 'LAND';

export interface PricedProperty {
  country: Country;
  /** Metric position: EPSG:25833 (Norway) or EPSG:3006 (Sweden), metres. */
  east: number;
  north: number;
  municipalityCode: string;
  /** A city municipality of the sample (denser, dearer). */
  urban: boolean;
  use: PriceUse;
  /** Usable floor area (Norway) or main-building footprint (Sweden), m²; 0 for land. */
  floorAreaM2: number;
  plotAreaM2: number;
  /** Year taken into use; null when unknown or under construction (priced as new). */
  builtYear: number | null;
  /** A festegrunn: the land is leased, not owned. */
  leasehold: boolean;
}

/** Price per effective m² in 2024 (NOK or SEK), and the area over which returns diminish. */
const USE_LEVEL: Record<PriceUse, { perM2: number; s0: number }> = {
  HOUSE: { perM2: 34_000, s0: 220 },
  FLAT: { perM2: 52_000, s0: 110 },
  HOLIDAY: { perM2: 26_000, s0: 120 },
  COMMERCIAL: { perM2: 21_000, s0: 1_400 },
  INDUSTRIAL: { perM2: 11_000, s0: 2_500 },
  OTHER: { perM2: 7_000, s0: 600 },
  LAND: { perM2: 900, s0: 2_000 },
};

const NOISE_SIGMA = 0.09;
const MIN_PRICE = 200_000;
const Channel = { regional: 201, neighbourhood: 202, municipality: 203, noise: 204 } as const;

const smoothstep = (t: number) => t * t * (3 - 2 * t);

/** Value noise in [0, 1]: seeded values at the corners of a `cell`-metre grid, smoothly blended. */
function valueNoise(seedHash: number, channel: number, east: number, north: number, cell: number): number {
  const x = east / cell, y = north / cell;
  const ix = Math.floor(x), iy = Math.floor(y);
  const fx = smoothstep(x - ix), fy = smoothstep(y - iy);
  const at = (dx: number, dy: number) => noise(seedHash, channel, ix + dx + 1_000_000, iy + dy + 1_000_000);
  const bottom = at(0, 0) * (1 - fx) + at(1, 0) * fx;
  const top = at(0, 1) * (1 - fx) + at(1, 1) * fx;
  return bottom * (1 - fy) + top * fy;
}

/** Location multiplier: regional swell, neighbourhood ripple, municipality effect, city premium. */
export function locationFactor(seedHash: number, p: Pick<PricedProperty, 'east' | 'north' | 'municipalityCode' | 'urban'>): number {
  const regional = valueNoise(seedHash, Channel.regional, p.east, p.north, 40_000) * 2 - 1;
  const neighbourhood = valueNoise(seedHash, Channel.neighbourhood, p.east, p.north, 450) * 2 - 1;
  const municipality = noise(seedHash, Channel.municipality, Number(p.municipalityCode)) * 2 - 1;
  return Math.exp(0.3 * regional + 0.12 * neighbourhood + 0.12 * municipality) * (p.urban ? 1.6 : 1);
}

/** Depreciation that levels off, then a premium for old stock (1.0 when new). */
export function ageFactor(age: number): number {
  const a = Math.max(0, age);
  return 0.72 + 0.28 * Math.exp(-a / 18) + 0.14 * smoothstep(Math.min(1, Math.max(0, (a - 70) / 60)));
}

/** The market at a day, relative to 2024: trend plus a wave whose period and phase differ per country. */
export function marketFactor(country: Country, day: string): number {
  const t = Number(day.slice(0, 4)) + (Number(day.slice(5, 7)) - 0.5) / 12;
  const wave = country === 'NO' ? Math.sin((2 * Math.PI * (t - 2016)) / 6.5) : Math.sin((2 * Math.PI * (t - 2017.5)) / 5.5);
  return Math.exp(0.05 * (t - 2024)) * (1 + 0.07 * wave);
}

/** The price before noise: what the property is worth on that day. */
export function expectedPrice(seedHash: number, p: PricedProperty, day: string): number {
  const level = USE_LEVEL[p.use];
  const location = locationFactor(seedHash, p);
  if (p.use === 'LAND' || p.floorAreaM2 <= 0) {
    return Math.max(MIN_PRICE, level.perM2 * level.s0 * Math.log1p(p.plotAreaM2 / level.s0) * location * marketFactor(p.country, day));
  }
  const effectiveArea = level.s0 * Math.log1p(p.floorAreaM2 / level.s0);
  const age = p.builtYear === null ? 0 : Number(day.slice(0, 4)) - p.builtYear;
  const plot = p.use === 'HOUSE' || p.use === 'HOLIDAY' ? 1 + 0.25 * (1 - Math.exp(-p.plotAreaM2 / 1_500)) : 1;
  // Nothing with a building on it changes hands for less than a small plot would fetch.
  return Math.max(MIN_PRICE, level.perM2 * effectiveArea * location * ageFactor(age) * plot * (p.leasehold ? 0.8 : 1) * marketFactor(p.country, day));
}

/**
 * The registered price: the expected price times log-normal noise. `draw` is the caller's own
 * uniform draw; `key` names the sale, for the second uniform of the Box–Muller pair.
 */
export function salePrice(seed: string, p: PricedProperty, day: string, draw: number, key: string): number {
  const seedHash = hashSeed(seed);
  const second = seedrandom.alea(`${seed}#price#${key}`)();
  const gaussian = Math.sqrt(-2 * Math.log(1 - draw)) * Math.cos(2 * Math.PI * second);
  const price = expectedPrice(seedHash, p, day) * Math.exp(NOISE_SIGMA * gaussian);
  const step = p.country === 'NO' ? 10_000 : 1_000;
  return Math.max(step, Math.round(price / step) * step);
}
