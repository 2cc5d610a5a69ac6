/**
 * Postal codes and postal place names (postnummer/poststed) for the sample.
 *
 * Each county has a range of four-digit codes in the real national scheme (Oslo 0xxx, Agder
 * 44xx–49xx, Vestland 5xxx, Trøndelag 7xxx, ...); the range is split into disjoint blocks, one per
 * municipality, so a postal code always belongs to one municipality and one poststed.
 */
import { loadMunicipalities, type Municipality } from './municipalities.js';

const COUNTY_RANGES: Record<string, [number, number]> = {
  '03': [150, 1299],
  '32': [1300, 1499],
  '31': [1500, 1999],
  '34': [2000, 2999],
  '39': [3000, 3299],
  '33': [3300, 3599],
  '40': [3600, 3999],
  '11': [4000, 4399],
  '42': [4400, 4999],
  '46': [5000, 5999],
  '15': [6000, 6999],
  '50': [7000, 7999],
  '18': [8000, 8999],
  '55': [9000, 9499],
  '56': [9500, 9999],
};

/** Real postal places used for the featured municipalities that have more than one. */
const POSTSTED_OVERRIDES: Record<string, readonly string[]> = {
  '4204': ['KRISTIANSAND S'],
  '3201': ['SANDVIKA', 'BEKKESTUA', 'STABEKK', 'HØVIK', 'BÆRUMS VERK'],
};

export interface PostalBlock {
  first: number;
  size: number;
}

let blocks: Map<string, PostalBlock> | undefined;

export function postalBlock(kommunenummer: string): PostalBlock {
  if (!blocks) {
    blocks = new Map();
    const byCounty = new Map<string, Municipality[]>();
    for (const m of loadMunicipalities()) {
      const list = byCounty.get(m.county) ?? [];
      list.push(m);
      byCounty.set(m.county, list);
    }
    for (const [county, list] of byCounty) {
      const range = COUNTY_RANGES[county];
      if (!range) throw new Error(`no postal code range for county ${county}`);
      const size = Math.floor((range[1] - range[0] + 1) / list.length);
      list.forEach((m, i) => blocks!.set(m.kommunenummer, { first: range[0] + i * size, size }));
    }
  }
  const block = blocks.get(kommunenummer);
  if (!block) throw new Error(`unknown municipality ${kommunenummer}`);
  return block;
}

/** The postal code of postal zone `zone` of a municipality, as four-digit text. */
export function postnummer(kommunenummer: string, zone: number): string {
  const block = postalBlock(kommunenummer);
  return String(block.first + (zone % block.size)).padStart(4, '0');
}

/** The postal place of a code; a function of the code alone, so each code has one poststed. */
export function poststed(municipality: Municipality, code: string): string {
  const overrides = POSTSTED_OVERRIDES[municipality.kommunenummer];
  if (overrides) {
    const offset = Number(code) - postalBlock(municipality.kommunenummer).first;
    return overrides[Math.floor(offset / 2) % overrides.length];
  }
  return municipality.norwegianName.toLocaleUpperCase('nb-NO');
}
