/**
 * The buildings of one sample parcel: a pure function of the parcel and the seed hash, so the
 * building GML, the matrikkel-detail exchange file and every register that refers to buildings
 * (energy certificates, certifications, permits) agree on them without reading each other's
 * files. The signature of `sampleBuildingsOf` is shared with other writers: keep it stable.
 *
 * Which matrikkelenhet a building stands on: each building names the unit (cadastreId) of the
 * teig it stands on; each bruksenhet names its own unit (a section's id on a sectioned parcel).
 * `matrikkelenhetId` is the Matrikkel's internal id of that unit, derived from the cadastre
 * number (see `matrikkelenhetIdOf`), as the real file carries an internal id.
 */
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { polygon } from '@turf/helpers';
import seedrandom from 'seedrandom';
import { formatCadastreId } from '../../sources/no/cadastre-id.js';
import { isFeatured } from '../municipalities.js';
import { round2 } from '../parcel-grid.js';
import { intBetween, weightedIndex, type Rng } from '../random.js';
import type { Point, SampleAddress, SampleParcel, SampleUnit } from '../types.js';

export type SampleUseType = 'BOLIG' | 'NAERING' | 'FRITID' | 'ANNET';

export interface SampleBuildingUnit {
  /** Bruksenhetsnummer, `H0101` (letter, floor, number on the floor). */
  unitNumber: string;
  /** The Matrikkel's internal bruksenhet id. */
  bruksenhetId: number;
  /** The unit (section on a sectioned parcel) the bruksenhet belongs to. */
  cadastreId: string;
  matrikkelenhetId: number;
  floor: number;
  usableAreaM2: number;
  roomCount: number;
  bathroomCount: number;
  toiletCount: number;
  useType: SampleUseType;
  /** adresseId of one of the parcel's addresses on the unit's property; null when there is none (or the parcel was built without addresses). */
  addressId: number | null;
}

export interface SampleStatusChange {
  /** Bygningsstatus code (RA, IG, MB, FA, TB, ...). */
  code: string;
  /** `yyyy-MM-dd` */
  changedDate: string;
  /** `yyyy-MM-dd`, on or after changedDate. */
  registeredDate: string;
}

export interface SampleBuilding {
  /** The Matrikkel's internal bygning id (GML lokalId). */
  bygningId: number;
  /** Bygningsnummer, the public building number. */
  buildingNumber: number;
  /** Bygningstype code, three digits, from the full code list. */
  typeCode: string;
  /** The current bygningsstatus code (the last of statusHistory). */
  statusCode: string;
  statusHistory: SampleStatusChange[];
  /** Year taken into use; null while under construction. */
  builtYear: number | null;
  floors: number;
  footprintM2: number;
  grossAreaM2: number;
  usableAreaM2: number;
  /** Point strictly inside the teig (outside its hole), EPSG:25833. */
  point: Point;
  /** The unit the building stands on. */
  cadastreId: string;
  matrikkelenhetId: number;
  isMainBuilding: boolean;
  hasCulturalHeritage: boolean;
  hasSefrak: boolean;
  /** Bruksenheter in the building; empty for garages, barns and the like. */
  units: SampleBuildingUnit[];
}

/** Bygningsnummer of building j of parcel i is BUILDING_NUMBER_BASE + 8 i + j. */
export const BUILDING_NUMBER_BASE = 100_000_000;
export const MAX_BUILDINGS_PER_PARCEL = 8;
/** Internal bygning ids live in another range, as in the Matrikkel. */
const BYGNING_ID_BASE = 2_000_000_000;
const BRUKSENHET_ID_BASE = 5_000_000_000;
/** Bruksenheter per parcel at most (sections are at most 12, houses a few, blocks up to 24). */
const MAX_UNITS_PER_PARCEL = 64;

/**
 * The Matrikkel's internal id of a unit, derived from its number so every writer agrees on
 * it without a lookup: kommune, gnr (< 10000), bnr (< 1000), fnr (< 6) and snr (< 16) packed
 * into one integer well below 2^53.
 */
export function matrikkelenhetIdOf(unit: SampleUnit): number {
  const k = Number(unit.kommunenummer);
  return ((k * 10_000 + unit.gardsnummer) * 1000 + unit.bruksnummer) * 100 + unit.festenummer * 16 + unit.seksjonsnummer;
}

interface TypeChoice {
  code: string;
  weight: number;
  /** Dwellings or commercial units: [min, max]. */
  units: [number, number];
  floors: [number, number];
  /** Footprint in m²: [min, max]. */
  footprint: [number, number];
  use: SampleUseType;
}

const house = (code: string, weight: number, units: [number, number], floors: [number, number], footprint: [number, number]): TypeChoice => ({
  code, weight, units, floors, footprint, use: 'BOLIG',
});

const RURAL_MAIN: TypeChoice[] = [
  house('111', 0.52, [1, 1], [1, 2], [70, 160]),
  house('112', 0.1, [2, 2], [1, 2], [80, 170]),
  house('113', 0.08, [1, 1], [1, 2], [90, 180]),
  house('121', 0.05, [2, 2], [1, 2], [110, 200]),
  house('131', 0.04, [3, 6], [2, 2], [150, 320]),
  { code: '161', weight: 0.08, units: [1, 1], floors: [1, 1], footprint: [35, 110], use: 'FRITID' },
  { code: '249', weight: 0.04, units: [0, 0], floors: [1, 2], footprint: [120, 600], use: 'ANNET' },
  { code: '322', weight: 0.03, units: [1, 2], floors: [1, 2], footprint: [150, 900], use: 'NAERING' },
  { code: '231', weight: 0.02, units: [1, 1], floors: [1, 1], footprint: [300, 1500], use: 'NAERING' },
  { code: '999', weight: 0.01, units: [0, 0], floors: [1, 1], footprint: [20, 80], use: 'ANNET' },
];

const URBAN_MAIN: TypeChoice[] = [
  house('111', 0.24, [1, 1], [1, 2], [70, 150]),
  house('112', 0.08, [2, 2], [2, 2], [80, 150]),
  house('121', 0.08, [2, 2], [2, 2], [100, 180]),
  house('122', 0.05, [2, 2], [2, 2], [90, 160]),
  house('131', 0.1, [3, 8], [2, 3], [150, 360]),
  house('133', 0.03, [3, 5], [1, 2], [150, 300]),
  house('142', 0.1, [6, 16], [3, 4], [300, 700]),
  house('145', 0.06, [8, 24], [3, 4], [350, 800]),
  { code: '311', weight: 0.08, units: [1, 6], floors: [2, 6], footprint: [300, 1200], use: 'NAERING' },
  { code: '322', weight: 0.06, units: [1, 3], floors: [1, 3], footprint: [200, 900], use: 'NAERING' },
  { code: '612', weight: 0.03, units: [1, 1], floors: [1, 2], footprint: [300, 800], use: 'NAERING' },
  { code: '211', weight: 0.03, units: [1, 2], floors: [1, 2], footprint: [500, 2000], use: 'NAERING' },
  { code: '511', weight: 0.02, units: [1, 1], floors: [3, 8], footprint: [400, 1200], use: 'NAERING' },
  { code: '721', weight: 0.02, units: [1, 1], floors: [2, 4], footprint: [600, 1500], use: 'NAERING' },
  { code: '671', weight: 0.02, units: [0, 0], floors: [1, 1], footprint: [200, 600], use: 'ANNET' },
];

/** An eierseksjon building: a block of flats (a few with shops on the ground floor). */
const SECTIONED_MAIN: TypeChoice[] = [
  house('142', 0.45, [0, 0], [3, 4], [300, 700]),
  house('143', 0.2, [0, 0], [5, 8], [400, 900]),
  house('145', 0.2, [0, 0], [3, 4], [350, 800]),
  house('131', 0.15, [0, 0], [2, 2], [150, 360]),
];

const LEASEHOLD_MAIN: TypeChoice[] = [
  house('111', 0.45, [1, 1], [1, 2], [60, 140]),
  { code: '161', weight: 0.45, units: [1, 1], floors: [1, 1], footprint: [30, 100], use: 'FRITID' },
  { code: '171', weight: 0.05, units: [1, 1], floors: [1, 1], footprint: [20, 60], use: 'FRITID' },
  { code: '183', weight: 0.05, units: [0, 0], floors: [1, 1], footprint: [15, 50], use: 'ANNET' },
];

/** Buildings without units beside a main building. */
const ANNEX: TypeChoice[] = [
  { code: '181', weight: 0.8, units: [0, 0], floors: [1, 1], footprint: [18, 60], use: 'ANNET' },
  { code: '183', weight: 0.08, units: [0, 0], floors: [1, 1], footprint: [15, 45], use: 'ANNET' },
  { code: '241', weight: 0.08, units: [0, 0], floors: [1, 2], footprint: [80, 400], use: 'ANNET' },
  { code: '182', weight: 0.04, units: [0, 0], floors: [1, 1], footprint: [12, 40], use: 'ANNET' },
];

/** What stands on a land teig (farmland, forest, shore): barns, sheds, boathouses, forest huts. */
const LAND: TypeChoice[] = [
  { code: '241', weight: 0.4, units: [0, 0], floors: [1, 2], footprint: [80, 600], use: 'ANNET' },
  { code: '249', weight: 0.2, units: [0, 0], floors: [1, 1], footprint: [30, 300], use: 'ANNET' },
  { code: '183', weight: 0.15, units: [0, 0], floors: [1, 1], footprint: [15, 60], use: 'ANNET' },
  { code: '172', weight: 0.1, units: [0, 0], floors: [1, 1], footprint: [12, 40], use: 'ANNET' },
  { code: '181', weight: 0.1, units: [0, 0], floors: [1, 1], footprint: [15, 50], use: 'ANNET' },
  { code: '243', weight: 0.05, units: [0, 0], floors: [1, 1], footprint: [100, 1500], use: 'ANNET' },
];

/**
 * Status paths, the last code being the current status. TB/FA/MB are in use, RA/IG under
 * construction; the rest are the rarer codes a real register carries.
 */
const STATUS_PATHS: { weight: number; path: string[] }[] = [
  { weight: 0.55, path: ['RA', 'IG', 'FA'] },
  { weight: 0.25, path: ['TB'] },
  { weight: 0.06, path: ['IG', 'MB', 'FA'] },
  { weight: 0.03, path: ['RA', 'IG', 'MB'] },
  { weight: 0.02, path: ['RA'] },
  { weight: 0.02, path: ['RA', 'IG'] },
  { weight: 0.02, path: ['MT', 'MF'] },
  { weight: 0.02, path: ['IP'] },
  { weight: 0.015, path: ['FS'] },
  { weight: 0.01, path: ['TB', 'GR'] },
  { weight: 0.005, path: ['MT'] },
];
const UNDER_CONSTRUCTION = new Set(['RA', 'IG', 'MT']);

/** A section's building stands on the whole property it divides (section number 0). */
function wholePropertyOf(section: SampleUnit): SampleUnit {
  const whole = { ...section, seksjonsnummer: 0 };
  return { ...whole, cadastreId: formatCadastreId(whole) };
}

function pickChoice(rng: Rng, choices: TypeChoice[]): TypeChoice {
  return choices[weightedIndex(rng, choices.map((c) => c.weight))];
}

const pad2 = (n: number) => String(n).padStart(2, '0');

function isoDate(year: number, dayOfYear: number): string {
  const d = new Date(Date.UTC(year, 0, 1 + dayOfYear));
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

/** Status history ending in the current status; in-use buildings reach it in their built year. */
function statusHistoryOf(rng: Rng, path: string[], builtYear: number): SampleStatusChange[] {
  const steps = path.length;
  // Each step a few months after the previous one, the last in builtYear (or this year's start for ongoing work).
  const dates: { year: number; day: number }[] = [];
  let year = builtYear, day = intBetween(rng, 120, 340);
  for (let i = steps - 1; i >= 0; i--) {
    dates[i] = { year, day };
    day -= intBetween(rng, 60, 240);
    while (day < 0) { day += 365; year -= 1; }
  }
  return path.map((code, i) => {
    const { year: y, day: d } = dates[i];
    const lag = intBetween(rng, 0, 30);
    return { code, changedDate: isoDate(y, d), registeredDate: isoDate(y, d + lag) };
  });
}

/** Whether a point (with a 1 m box around it) lies inside the teig and outside its holes. */
function insideTeig(shape: ReturnType<typeof polygon>, east: number, north: number): boolean {
  for (const [dx, dy] of [[0, 0], [-1, -1], [1, -1], [1, 1], [-1, 1]]) {
    if (!booleanPointInPolygon([east + dx, north + dy], shape)) return false;
  }
  return true;
}

function placePoint(rng: Rng, parcel: SampleParcel, shape: ReturnType<typeof polygon>, spread: number): Point {
  let west = Infinity, east = -Infinity, south = Infinity, north = -Infinity;
  for (const [e, n] of parcel.exterior) {
    if (e < west) west = e;
    if (e > east) east = e;
    if (n < south) south = n;
    if (n > north) north = n;
  }
  const [ce, cn] = parcel.representasjonspunkt;
  for (let attempt = 0; attempt < 16; attempt++) {
    const e = round2(ce + (rng() * 2 - 1) * spread * (east - west));
    const n = round2(cn + (rng() * 2 - 1) * spread * (north - south));
    if (insideTeig(shape, e, n)) return [e, n];
  }
  // The representasjonspunkt is inside the teig and clear of its hole by construction.
  return [ce, cn];
}

/** An address of the unit's own property (a section's: the property it divides), taken in turn; null when it has none. */
function addressFor(addresses: readonly SampleAddress[], owner: SampleUnit, turn: number): number | null {
  const own = addresses.filter((a) => a.gardsnummer === owner.gardsnummer && a.bruksnummer === owner.bruksnummer && (a.festenummer ?? 0) === owner.festenummer);
  return own.length ? own[turn % own.length].adresseId : null;
}

function unitsPerFloor(count: number, floors: number): number {
  return Math.max(1, Math.ceil(count / floors));
}

/** `H0101`: H for a main floor (U below ground), floor number, number on the floor. */
function unitNumber(letter: 'H' | 'U', floor: number, onFloor: number): string {
  return `${letter}${pad2(floor)}${pad2(onFloor)}`;
}

/**
 * Buildings already made for a parcel object: several register files read the same parcel's
 * buildings while the generator shares parcels between writers. Keyed by the object, so memory
 * follows the parcels' own lifetime; callers only read the result.
 */
const madeBuildings = new WeakMap<SampleParcel, { seedHash: number; buildings: SampleBuilding[] }>();

export function sampleBuildingsOf(parcel: SampleParcel, seedHash: number): SampleBuilding[] {
  const made = madeBuildings.get(parcel);
  if (made && made.seedHash === seedHash) return made.buildings;
  const buildings = buildingsOfParcel(parcel, seedHash);
  madeBuildings.set(parcel, { seedHash, buildings });
  return buildings;
}

function buildingsOfParcel(parcel: SampleParcel, seedHash: number): SampleBuilding[] {
  const rng: Rng = seedrandom.alea(`buildings/${seedHash}/${parcel.index}`);
  const urban = rng() < (isFeatured(parcel.kommunenummer) ? 0.9 : 0.15);
  const shape = polygon([parcel.exterior, ...parcel.holes]);

  // What stands on the parcel: a main building (except on most secondary teigs) and annexes.
  let main: TypeChoice | null;
  if (parcel.land) return landBuildings(parcel, rng, shape);
  switch (parcel.kind) {
    case 'sectioned': main = pickChoice(rng, SECTIONED_MAIN); break;
    case 'leasehold': main = pickChoice(rng, LEASEHOLD_MAIN); break;
    case 'secondary': main = null; break;
    default: main = pickChoice(rng, urban ? URBAN_MAIN : RURAL_MAIN);
  }
  const annexWeights = parcel.mix.annexWeights;
  const annexCount = parcel.kind === 'secondary' ? weightedIndex(rng, [0.4, 0.5, 0.1]) : weightedIndex(rng, urban ? annexWeights.urban : annexWeights.rural);
  const choices: TypeChoice[] = [];
  if (main) choices.push(main);
  for (let a = 0; a < annexCount; a++) choices.push(pickChoice(rng, ANNEX));
  // A shared teig has a second house, standing on the second unit.
  if (parcel.kind === 'shared') choices.splice(1, 0, pickChoice(rng, RURAL_MAIN.slice(0, 5)));
  return buildingsFrom(parcel, rng, shape, choices, main !== null);
}

function landBuildings(parcel: SampleParcel, rng: Rng, shape: ReturnType<typeof polygon>): SampleBuilding[] {
  const count = weightedIndex(rng, parcel.mix.landBuildingWeights);
  const choices: TypeChoice[] = [];
  for (let b = 0; b < count; b++) choices.push(pickChoice(rng, LAND));
  return buildingsFrom(parcel, rng, shape, choices, false);
}

/** The buildings for the chosen types, in order; the first is the main building when `hasMain`. */
function buildingsFrom(parcel: SampleParcel, rng: Rng, shape: ReturnType<typeof polygon>, choices: TypeChoice[], hasMain: boolean): SampleBuilding[] {

  const addresses = parcel.addresses;
  const buildings: SampleBuilding[] = [];
  let bruksenhetSeq = 0;
  let addressCursor = 0;
  choices.slice(0, MAX_BUILDINGS_PER_PARCEL).forEach((choice, j) => {
    const isMain = j === 0 && hasMain;
    const standsOn = parcel.kind === 'shared' && j === 1 ? parcel.units[1] : parcel.kind === 'sectioned' ? wholePropertyOf(parcel.units[0]) : parcel.units[0];
    let status = STATUS_PATHS[weightedIndex(rng, STATUS_PATHS.map((s) => s.weight))].path;
    let current = status[status.length - 1];
    const oldness = rng();
    // Most of the stock is from 1950–2015; a tail reaches back to 1850.
    const year = UNDER_CONSTRUCTION.has(current) ? 2025 : oldness < 0.08 ? intBetween(rng, 1850, 1949) : intBetween(rng, 1950, 2024);
    // Buildings older than the Matrikkel's case handling were registered as simply taken into use.
    if (year < 1970 && status[0] === 'RA') {
      status = current === 'MB' ? ['MB'] : ['TB'];
      current = status[0];
    }
    const floors = intBetween(rng, choice.floors[0], choice.floors[1]);
    const footprint = Math.round(choice.footprint[0] + rng() * (choice.footprint[1] - choice.footprint[0]));
    const gross = Math.round(footprint * floors * (0.95 + 0.1 * rng()));
    const usable = Math.round(gross * (0.8 + 0.08 * rng()));
    const point = placePoint(rng, parcel, shape, isMain ? 0.12 : 0.3);
    const heritageRoll = rng();

    // Bruksenheter: one per section on a sectioned parcel's main building, else by type.
    const units: SampleBuildingUnit[] = [];
    const owners: SampleUnit[] = parcel.kind === 'sectioned' && isMain
      ? parcel.units
      : Array.from({ length: intBetween(rng, choice.units[0], choice.units[1]) }, () => standsOn);
    const perFloor = unitsPerFloor(owners.length, floors);
    const basement = choice.code === '112' && owners.length === 2;
    owners.forEach((owner, u) => {
      if (bruksenhetSeq >= MAX_UNITS_PER_PARCEL) return;
      const floor = basement && u === 1 ? 1 : 1 + Math.floor(u / perFloor);
      const number = basement && u === 1 ? unitNumber('U', 1, 1) : unitNumber('H', floor, 1 + (u % perFloor));
      // Ground-floor sections of a block are sometimes shops.
      const useType: SampleUseType = parcel.kind === 'sectioned' && floor === 1 && rng() < 0.15 ? 'NAERING' : choice.use;
      // Units share the building's usable area (stairs and walls take the rest).
      const even = usable / Math.max(1, owners.length);
      const share = even * (0.85 + 0.1 * rng());
      const area = Math.max(1, Math.min(Math.floor(even), Math.round(useType === 'BOLIG' ? Math.min(260, Math.max(28, share)) : Math.max(18, share))));
      const rooms = useType === 'BOLIG' || useType === 'FRITID' ? Math.max(1, Math.min(8, Math.round(area / 25))) : 0;
      units.push({
        unitNumber: number,
        bruksenhetId: BRUKSENHET_ID_BASE + parcel.index * MAX_UNITS_PER_PARCEL + bruksenhetSeq,
        cadastreId: owner.cadastreId,
        matrikkelenhetId: matrikkelenhetIdOf(owner),
        floor,
        usableAreaM2: area,
        roomCount: rooms,
        bathroomCount: rooms === 0 ? 0 : area > 110 ? 2 : 1,
        toiletCount: rooms === 0 ? 1 : area > 90 ? 2 : 1,
        useType,
        addressId: addressFor(addresses, owner, addressCursor++),
      });
      bruksenhetSeq += 1;
    });

    buildings.push({
      bygningId: BYGNING_ID_BASE + parcel.index * MAX_BUILDINGS_PER_PARCEL + j,
      buildingNumber: BUILDING_NUMBER_BASE + parcel.index * MAX_BUILDINGS_PER_PARCEL + j,
      typeCode: choice.code,
      statusCode: current,
      statusHistory: statusHistoryOf(rng, status, year),
      builtYear: UNDER_CONSTRUCTION.has(current) ? null : year,
      floors,
      footprintM2: footprint,
      grossAreaM2: gross,
      usableAreaM2: usable,
      point,
      cadastreId: standsOn.cadastreId,
      matrikkelenhetId: matrikkelenhetIdOf(standsOn),
      isMainBuilding: isMain,
      hasCulturalHeritage: year < 1900 && heritageRoll < 0.3,
      hasSefrak: year < 1900 && heritageRoll < 0.8,
      units,
    });
  });
  return buildings;
}
