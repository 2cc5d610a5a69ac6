/**
 * The Swedish sample plan: properties (registerenheter) with their areas, addresses and
 * buildings, in real municipalities, as pure functions of the seed.
 *
 *   const plan = planSwedishSample(count, seed);      // small: one block per municipality
 *   for (const property of propertiesOfSwedishPlan(plan)) …
 *   sampleSwedishProperties(seed, count)              // the same, in one call
 *   swedishPropertyAt(plan, index)                    // any one property, from its index alone
 *
 * Layout: each municipality gets a square grid of cells centred on its anchor (a point deep
 * inside the real boundary, sample/data/se-municipality-anchors.csv), sized so the whole grid
 * stays within the anchor's clearance: every area, address and building lies inside the real
 * municipality. One cell is one property. Cells are grouped 4 rows × 8 columns into a trakt
 * (or, in a share of the trakts, a kvarter, whose designations have no block); a street runs
 * between each pair of rows, 12 cells long, odd numbers on its south side, even on its north.
 *
 * - 3% of properties are joint units with neither addresses nor buildings: two thirds
 *   samfälligheter (`S:n`, objekttyp samfällighetsområde), one third gemensamhetsanläggningar
 *   (`GA:n`, etikett `ga:n`; objekttyp ospecificerat område: Lantmäteriet keeps their areas in a
 *   product of their own, the sample puts a few in this layer so the demo shows the type);
 * - 8% of the others have two areas (skiften): the cell split 60/40 across a 3 m path, etikett
 *   `1:7>1` and `1:7>2`; addresses and buildings stand on the first;
 * - an ordinary property has 0 (5%), 1 (70%) or 2 (25%, bokstavstillägg A and B) addresses;
 *   5% carry a lägestillägg (`U1`), 2% a deviating designation (`12-14`), 2% are Reserverad;
 * - it has a main building (huvudbyggnad Ja, husnummer 1), half of them a complementary one
 *   (husnummer 2); 6% of main buildings are multipart (two GeoPackage rows, one objektidentitet),
 *   two thirds of those with touching parts that dissolve into one polygon.
 *
 * Each property is rebuilt from (seed, index) by its own seeded stream, so a national sample
 * streams in constant memory.
 */
import { seCadastreId, seDesignation } from '../../sources/se/cadastre-id.js';
import { apportion } from '../apportion.js';
import type { IndexWindow } from '../index-window.js';
import { hostOf, isPresent, itemSeed, nightPositions, type SampleNight } from '../night.js';
import { PARCELS_SE_MIX, type SwedishMix } from '../profile.js';
import { deterministicUuid, hashSeed, intBetween, noise, parcelRng, pick, weightedIndex, type Rng } from '../random.js';
import { isFeaturedSe, selectSwedishMunicipalities, type SeMunicipality } from './municipalities.js';
import { kvarterName, streetName, traktName } from './names.js';
import type { SeSampleAddress, SeSampleArea, SeSampleBuilding, SePoint, SeSampleProperty, SePropertyKind } from './types.js';

export type { SeSampleAddress, SeSampleArea, SeSampleBuilding, SePoint, SeSampleProperty, SePropertyKind } from './types.js';

export const TRAKT_ROWS = 4;
export const TRAKT_COLS = 8;
export const SE_STREET_COLS = 12;
/** Gap between the two areas of a two-area property, metres. */
const PATH_WIDTH = 3;
/** Noise channels beyond the Norwegian plan's (sample/random.ts). */
const SeChannel = { cellSize: 101, kvarter: 102, traktOffset: 103, kvarterOffset: 104, streetOffset: 105 } as const;

export interface SeMunicipalityBlock {
  municipality: SeMunicipality;
  firstProperty: number;
  count: number;
  cols: number;
  rows: number;
  /** Cell size in centimetres (whole, so every vertex is exact in cm). */
  cellCm: number;
  /** South-west corner of the grid, centimetres in EPSG:3006. */
  originEastCm: number;
  originNorthCm: number;
  kvarterShare: number;
  traktOffset: number;
  kvarterOffset: number;
  streetOffset: number;
}

export interface SeSamplePlan {
  seed: string;
  seedHash: number;
  count: number;
  blocks: SeMunicipalityBlock[];
  /** The ratios the per-property draws read (sample/profile.ts). */
  mix: SwedishMix;
  /** Set by the generator while its writers stream this plan together (sample/index-window.ts). */
  window?: IndexWindow<SeSampleProperty>;
  /** A later night's removed, replaced and changed properties (sample/night.ts); absent on night 0. */
  night?: SampleNight;
}

export interface SwedishPlanOptions {
  /** Default: the `parcels` profile's historical ratios. */
  mix?: SwedishMix;
  /** Spread over all 290 municipalities at any size (the national profile). */
  allMunicipalities?: boolean;
}

const FEATURED_WEIGHT = 4;

/** How many Swedish properties a sample of `parcels` (the `--parcels` option) holds: the same number. */
export const swedishPropertyCount = (parcels: number) => parcels;

export function planSwedishSample(count: number, seed: string, options: SwedishPlanOptions = {}): SeSamplePlan {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`properties must be a positive whole number, got ${count}`);
  const seedHash = hashSeed(`${seed}#se`);
  const municipalities = selectSwedishMunicipalities(options.allMunicipalities ? Number.MAX_SAFE_INTEGER : count);
  const counts = apportion(count, municipalities.map((m) => (isFeaturedSe(m.kommunkod) ? FEATURED_WEIGHT : 1)));
  const blocks: SeMunicipalityBlock[] = [];
  let first = 0;
  municipalities.forEach((municipality, i) => {
    if (counts[i] === 0) return;
    const key = municipality.ordinal;
    const cols = Math.ceil(Math.sqrt(counts[i]));
    const rows = Math.ceil(counts[i] / cols);
    const urban = isFeaturedSe(municipality.kommunkod);
    const nominal = urban ? 24 + 6 * noise(seedHash, SeChannel.cellSize, key) : 34 + 10 * noise(seedHash, SeChannel.cellSize, key);
    // The grid's half-diagonal stays within 95% of the clearance, so the grid is inside the municipality.
    const fitting = (1.9 * municipality.clearance) / Math.hypot(cols, rows);
    const cellCm = Math.floor(Math.min(nominal, fitting) * 100);
    if (cellCm < 600) throw new RangeError(`${counts[i]} properties do not fit in ${municipality.name} (cells would be under 6 m)`);
    blocks.push({
      municipality,
      firstProperty: first,
      count: counts[i],
      cols,
      rows,
      cellCm,
      originEastCm: Math.round(municipality.east * 100 - (cols * cellCm) / 2),
      originNorthCm: Math.round(municipality.north * 100 - (rows * cellCm) / 2),
      kvarterShare: urban ? 0.6 : 0.2,
      traktOffset: Math.floor(noise(seedHash, SeChannel.traktOffset, key) * 512),
      kvarterOffset: Math.floor(noise(seedHash, SeChannel.kvarterOffset, key) * 100),
      streetOffset: Math.floor(noise(seedHash, SeChannel.streetOffset, key) * 480),
    });
    first += counts[i];
  });
  return { seed, seedHash, count, blocks, mix: options.mix ?? PARCELS_SE_MIX };
}

function blockOf(plan: SeSamplePlan, index: number): SeMunicipalityBlock {
  if (!Number.isInteger(index) || index < 0 || index >= plan.count) throw new RangeError(`property ${index} is not in this sample`);
  let low = 0, high = plan.blocks.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (plan.blocks[mid].firstProperty <= index) low = mid;
    else high = mid - 1;
  }
  return plan.blocks[low];
}

const cm = (value: number) => value / 100;

/** Counter-clockwise closed rectangle from centimetre bounds. */
function rectangle(west: number, south: number, east: number, north: number): SePoint[] {
  return [[cm(west), cm(south)], [cm(east), cm(south)], [cm(east), cm(north)], [cm(west), cm(north)], [cm(west), cm(south)]];
}

const rectangleArea = (west: number, south: number, east: number, north: number) => ((east - west) * (north - south)) / 10_000;

function isoDate(rng: Rng, fromYear: number, toYear: number): string {
  const year = intBetween(rng, fromYear, toYear), month = intBetween(rng, 1, 12), day = intBetween(rng, 1, 28);
  const hour = intBetween(rng, 0, 23), minute = intBetween(rng, 0, 59);
  const two = (n: number) => String(n).padStart(2, '0');
  // GeoPackage DATETIME form (what GDAL writes and reads without complaint).
  return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:00.000Z`;
}

const BUILDING_TYPES: { objekttypnr: number; objekttyp: string; andamal: string[]; urban: number; rural: number }[] = [
  { objekttypnr: 2061, objekttyp: 'Bostad', andamal: ['Bostad;Småhus friliggande'], urban: 10, rural: 62 },
  { objekttypnr: 2061, objekttyp: 'Bostad', andamal: ['Bostad;Småhus radhus'], urban: 8, rural: 6 },
  { objekttypnr: 2061, objekttyp: 'Bostad', andamal: ['Bostad;Flerfamiljshus'], urban: 45, rural: 4 },
  { objekttypnr: 2061, objekttyp: 'Bostad', andamal: ['Bostad;Flerfamiljshus', 'Verksamhet;Handel'], urban: 10, rural: 1 },
  { objekttypnr: 2064, objekttyp: 'Verksamhet', andamal: ['Verksamhet;Kontor'], urban: 12, rural: 2 },
  { objekttypnr: 2064, objekttyp: 'Verksamhet', andamal: ['Verksamhet;Handel'], urban: 5, rural: 3 },
  { objekttypnr: 2062, objekttyp: 'Industri', andamal: ['Industri;Tillverkning'], urban: 3, rural: 6 },
  { objekttypnr: 2063, objekttyp: 'Samhällsfunktion', andamal: ['Samhällsfunktion;Skola'], urban: 4, rural: 2 },
  { objekttypnr: 2063, objekttyp: 'Samhällsfunktion', andamal: ['Samhällsfunktion;Vård'], urban: 2, rural: 1 },
  { objekttypnr: 2065, objekttyp: 'Ekonomibyggnad', andamal: ['Ekonomibyggnad;Jordbruk'], urban: 0, rural: 10 },
  { objekttypnr: 2067, objekttyp: 'Övrig byggnad', andamal: ['Övrig byggnad;Övrig byggnad'], urban: 1, rural: 3 },
];
const COMPLEMENT = { objekttypnr: 2066, objekttyp: 'Komplementbyggnad', andamal: [['Komplementbyggnad;Garage'], ['Komplementbyggnad;Förråd'], ['Komplementbyggnad;Carport']] };

function pickWeighted<T>(rng: Rng, items: readonly T[], weight: (item: T) => number): T {
  let r = rng() * items.reduce((sum, item) => sum + weight(item), 0);
  for (const item of items) if ((r -= weight(item)) < 0) return item;
  return items[items.length - 1];
}

interface Cell { west: number; south: number; east: number; north: number }

function addressesOf(rng: Rng, plan: SeSamplePlan, index: number, block: SeMunicipalityBlock, row: number, col: number, lot: Cell): SeSampleAddress[] {
  const seed = plan.seed;
  const roll = rng();
  const weights = plan.mix.addressWeights;
  const count = weights ? weightedCount(roll, weights) : roll < 0.05 ? 0 : roll < 0.75 ? 1 : 2;
  if (count === 0) return [];
  const segments = Math.ceil(block.cols / SE_STREET_COLS);
  const street = Math.floor(row / 2) * segments + Math.floor(col / SE_STREET_COLS);
  const southSide = row % 2 === 1; // the street runs north of even rows, south of odd ones
  const number = 2 * (col % SE_STREET_COLS) + (southSide ? 2 : 1);
  const { municipality } = block;
  const postnummer = 10000 + ((municipality.ordinal * 331 + Math.floor(street / 8)) % 880) * 100 + (street % 8) * 10 + (southSide ? 2 : 1);
  const addresses: SeSampleAddress[] = [];
  for (let j = 0; j < count; j++) {
    const letter = count > 1 ? String.fromCharCode(65 + j) : null;
    const feature = rng();
    const lage = feature < 0.05 ? { lagestillagg: pick(rng, ['U', 'UH', 'UV'] as const), lagestillaggsnummer: intBetween(rng, 1, 3) } : null;
    const deviating = !lage && feature > 0.98 ? `${number}-${number + 2}` : null;
    const x = lot.west + ((j + 1) * (lot.east - lot.west)) / (count + 1);
    const y = row % 2 === 0 ? lot.north - 300 : lot.south + 300;
    const expected = deviating ?? `${number}${letter ?? ''}${lage ? ` ${lage.lagestillagg}${lage.lagestillaggsnummer}` : ''}`;
    addresses.push({
      objektidentitet: deterministicUuid(`${seed}/se/address/${index}/${j}`),
      adressplatstyp: 'Gatuadressplats',
      adressomrade: streetName(street, block.streetOffset),
      adressplatsnummer: String(number),
      bokstavstillagg: letter,
      lagestillagg: lage?.lagestillagg ?? null,
      lagestillaggsnummer: lage?.lagestillaggsnummer ?? null,
      avvikerfranstandarden: deviating !== null,
      avvikandeadressplatsbeteckning: deviating,
      postnummer,
      postort: municipality.kommunnamn,
      statusforbelagenhetsadress: rng() < 0.02 ? 'Reserverad' : 'Gällande',
      versiongiltigfran: isoDate(rng, 2008, 2025),
      point: [cm(Math.round(x)), cm(Math.round(y))],
      expectedHouseNumber: expected,
    });
  }
  return addresses;
}

/** The count a uniform `roll` falls on, by weights (index = count). */
function weightedCount(roll: number, weights: readonly number[]): number {
  let total = 0;
  for (const w of weights) total += w;
  let r = roll * total;
  for (let i = 0; i < weights.length; i++) if ((r -= weights[i]) < 0) return i;
  return weights.length - 1;
}

/** Where complementary building k stands: a band along the lot's south side, clear of the main building. */
const COMPLEMENT_WEST = [0.05, 0.27, 0.49, 0.71];

function buildingsOf(rng: Rng, plan: SeSamplePlan, index: number, urban: boolean, lot: Cell): SeSampleBuilding[] {
  const seed = plan.seed;
  const width = lot.east - lot.west, height = lot.north - lot.south;
  // Main building: the middle of the lot, clear of the address points 3 m from the street edges.
  const west = Math.round(lot.west + width * 0.2), east = Math.round(lot.east - width * 0.2);
  const south = Math.round(lot.south + height * 0.3), north = Math.round(lot.north - height * 0.3);
  const type = pickWeighted(rng, BUILDING_TYPES, (t) => (urban ? t.urban : t.rural));
  const multipart = rng();
  const middle = Math.round((west + east) / 2);
  const parts =
    multipart < 0.04 ? [rectangle(west, south, middle, north), rectangle(middle, south, east, north)] // touching: dissolves to one polygon
      : multipart < 0.06 ? [rectangle(west, south, middle - 50, north), rectangle(middle + 50, south, east, north)] // a metre apart
      : [rectangle(west, south, east, north)];
  const buildings: SeSampleBuilding[] = [{
    objektidentitet: deterministicUuid(`${seed}/se/building/${index}/1`),
    objekttypnr: type.objekttypnr,
    objekttyp: type.objekttyp,
    andamal: type.andamal,
    huvudbyggnad: 'Ja',
    husnummer: 1,
    parts,
    versiongiltigfran: isoDate(rng, 2015, 2025),
  }];
  const complementWeights = plan.mix.complementWeights;
  const complements = complementWeights ? Math.min(COMPLEMENT_WEST.length, weightedIndex(rng, complementWeights)) : rng() < 0.5 ? 1 : 0;
  for (let k = 0; k < complements; k++) {
    const size = Math.round(Math.min(width, height) * 0.12);
    const cornerWest = Math.round(lot.west + width * COMPLEMENT_WEST[k]), cornerSouth = Math.round(lot.south + height * 0.1);
    buildings.push({
      objektidentitet: deterministicUuid(`${seed}/se/building/${index}/${k + 2}`),
      objekttypnr: COMPLEMENT.objekttypnr,
      objekttyp: COMPLEMENT.objekttyp,
      andamal: pick(rng, COMPLEMENT.andamal),
      huvudbyggnad: 'Nej',
      husnummer: k + 2,
      parts: [rectangle(cornerWest, cornerSouth, cornerWest + size, cornerSouth + size)],
      versiongiltigfran: isoDate(rng, 2015, 2025),
    });
  }
  return buildings;
}

/** Samfälligheter and gemensamhetsanläggningar: units held by other properties, without addresses, buildings or sales. */
export function isJointUnit(kind: SePropertyKind): boolean {
  return kind === 'samfallighet' || kind === 'gemensamhetsanlaggning';
}

export function swedishPropertyAt(plan: SeSamplePlan, index: number): SeSampleProperty {
  // On a later night an added property takes a removed one's cell, and a changed one draws anew.
  const host = hostOf(plan.night, index);
  const block = blockOf(plan, host);
  const { municipality } = block;
  const local = host - block.firstProperty;
  const row = Math.floor(local / block.cols), col = local % block.cols;
  const rng = parcelRng(`${itemSeed(plan.seed, plan.night, index)}#se`, index);

  const traktCols = Math.ceil(block.cols / TRAKT_COLS);
  const traktIndex = Math.floor(row / TRAKT_ROWS) * traktCols + Math.floor(col / TRAKT_COLS);
  const position = (row % TRAKT_ROWS) * TRAKT_COLS + (col % TRAKT_COLS);
  const isKvarter = noise(plan.seedHash, SeChannel.kvarter, municipality.ordinal, traktIndex) < block.kvarterShare;
  // One draw decides: the same 3% are joint units as before gemensamhetsanläggningar were added.
  const jointDraw = rng();
  const kind: SePropertyKind = jointDraw < 0.01 ? 'gemensamhetsanlaggning' : jointDraw < 0.03 ? 'samfallighet' : isKvarter ? 'kvarter' : 'fastighet';
  const trakt = isKvarter ? kvarterName(traktIndex, block.kvarterOffset) : traktName(traktIndex, block.traktOffset);
  const blockText = kind === 'samfallighet' ? 'S' : kind === 'gemensamhetsanlaggning' ? 'GA' : kind === 'kvarter' ? null : String(1 + (row % TRAKT_ROWS));
  const enhet = kind === 'fastighet' ? 1 + (col % TRAKT_COLS) : position + 1;
  const parts = { kommunkod: municipality.kommunkod, kommunnamn: municipality.kommunnamn, trakt, block: blockText, enhet };
  const label = `${blockText === null ? '' : `${kind === 'gemensamhetsanlaggning' ? blockText.toLowerCase() : blockText}:`}${enhet}`;

  const cell: Cell = {
    west: block.originEastCm + col * block.cellCm,
    south: block.originNorthCm + row * block.cellCm,
    east: block.originEastCm + (col + 1) * block.cellCm,
    north: block.originNorthCm + (row + 1) * block.cellCm,
  };
  const twoAreas = !isJointUnit(kind) && block.cellCm >= 1500 && rng() < 0.08;
  const lots: Cell[] = twoAreas
    ? (() => {
        const split = cell.west + Math.round(block.cellCm * 0.6);
        return [{ ...cell, east: split }, { ...cell, west: split + PATH_WIDTH * 100 }];
      })()
    : [cell];
  const areas: SeSampleArea[] = lots.map((lot, i) => ({
    objektidentitet: deterministicUuid(`${plan.seed}/se/area/${index}/${i + 1}`),
    omradesnummer: i + 1,
    etikett: lots.length > 1 ? `${label}>${i + 1}` : label,
    exterior: rectangle(lot.west, lot.south, lot.east, lot.north),
    area: rectangleArea(lot.west, lot.south, lot.east, lot.north),
  }));
  const urban = isFeaturedSe(municipality.kommunkod);
  const senastandrad = isoDate(rng, 2005, 2025);
  return {
    index,
    registerenhetsreferens: deterministicUuid(`${plan.seed}/se/property/${index}`),
    kind,
    objekttyp: kind === 'samfallighet' ? 'samfällighetsområde' : kind === 'gemensamhetsanlaggning' ? 'ospecificerat område' : 'fastighetsområde',
    kommunkod: municipality.kommunkod,
    kommunnamn: municipality.kommunnamn,
    lanskod: municipality.lanskod,
    trakt,
    block: blockText,
    enhet,
    designation: seDesignation(parts),
    cadastreId: seCadastreId(parts),
    areas,
    senastandrad,
    addresses: isJointUnit(kind) ? [] : addressesOf(rng, plan, index, block, row, col, lots[0]),
    buildings: isJointUnit(kind) ? [] : buildingsOf(rng, plan, index, urban, lots[0]),
    mix: plan.mix,
  };
}

export function* propertiesOfSwedishPlan(plan: SeSamplePlan): Generator<SeSampleProperty> {
  const positions = nightPositions(plan.night, plan.count);
  if (plan.window) {
    for (const property of plan.window.pass(positions)) if (isPresent(plan.night, property.index)) yield property;
    return;
  }
  for (let index = 0; index < positions; index++) if (isPresent(plan.night, index)) yield swedishPropertyAt(plan, index);
}

/** The Swedish plan a register writer works from: the sample's, or `parcels` properties at the historical ratios. */
export function swedishPlanOf(context: { sePlan?: SeSamplePlan; parcels: number; seed: string }): SeSamplePlan {
  return context.sePlan ?? planSwedishSample(swedishPropertyCount(context.parcels), context.seed);
}

/** Every property of a sample of `count`, streamed, deterministic from the seed. */
export function sampleSwedishProperties(seed: string, count: number): Iterable<SeSampleProperty> {
  return propertiesOfSwedishPlan(planSwedishSample(count, seed));
}
