/**
 * Builds one sample parcel (teig) with its units and addresses from the plan and its index
 * alone. Both file passes and the tests call this, so what is written is what is checked.
 */
import { formatCadastreId } from '../sources/no/cadastre-id.js';
import { districtsFor } from './districts.js';
import { isFeatured } from './municipalities.js';
import {
  ADDRESS_MARGIN,
  HOLE_CLEARANCE,
  cellFrame,
  holeRing,
  parcelExterior,
  ringArea,
  round2,
  type CellFrame,
} from './parcel-grid.js';
import {
  GARD_COLS,
  GARD_ROWS,
  STREET_COLS,
  STREET_ROWS,
  locateParcel,
  parcelAt,
  planSample,
  type MunicipalityBlock,
  type SamplePlan,
} from './plan.js';
import { postnummer, poststed } from './postal.js';
import { Channel, deterministicUuid, intBetween, noise, parcelRng, weightedIndex, type Rng } from './random.js';
import { streetName } from './street-names.js';
import { hostOf, isPresent, itemSeed, nightPositions } from './night.js';
import type { ParcelKind, Point, SampleAddress, SampleParcel, SampleUnit } from './types.js';

import { DEFAULT_PARCELS } from './profile.js';

export { DEFAULT_PARCELS };
export const DEFAULT_SEED = '42';
/** Teig lokalId of parcel i is TEIG_ID_BASE + i. */
export const TEIG_ID_BASE = 1001;
/** adresseId of address j of parcel i is ADDRESS_ID_BASE + 10 i + j. */
export const ADDRESS_ID_BASE = 300_000_000;
export const MAX_ADDRESSES_PER_PARCEL = 8;
/** House numbers a parcel reserves on its side of the street. */
const NUMBER_SLOTS = 6;

/** Shares of the parcel kinds as rolled (a few secondary/leasehold rolls fall back to plain). */
const KIND_THRESHOLDS: [number, ParcelKind][] = [
  [0.022, 'secondary'],
  [0.033, 'shared'],
  [0.068, 'sectioned'],
  [0.088, 'leasehold'],
];
const HOLE_SHARE = 0.02;

/** Addresses per ordinary parcel: the plan's mix (`plainAddressWeights`, mean 3.49 in the `parcels` profile). */
/** Addresses on an eierseksjon building's teig, 0..8. */
const SECTIONED_ADDRESS_WEIGHTS = [0, 0, 0.2, 0.2, 0.2, 0.15, 0.1, 0.1, 0.05];
const LEASEHOLD_ADDRESS_WEIGHTS = [0.1, 0.6, 0.3];

const ADDRESS_DATE_FROM = Date.UTC(2008, 0, 1) / 1000;
const ADDRESS_DATE_TO = Date.UTC(2024, 5, 30) / 1000;
const TEIG_DATE_FROM = Date.UTC(2012, 0, 1) / 1000;
const TEIG_DATE_TO = Date.UTC(2024, 11, 31) / 1000;

function rolledKind(plan: SamplePlan, index: number): ParcelKind {
  const u = noise(plan.seedHash, Channel.parcelKind, index);
  for (const [limit, kind] of KIND_THRESHOLDS) if (u < limit) return kind;
  return 'plain';
}

interface KindDecision {
  kind: ParcelKind;
  /** Grid cell of the parcel whose gardsnummer/bruksnummer the units use. */
  ownerRow: number;
  ownerCol: number;
}

/**
 * A secondary teig belongs to the unit two cells west (not adjacent: adjacent teigs of one unit
 * would be one teig); a festegrunn is leased from the unit next west. Either needs that parcel
 * to be plain, which its own roll alone decides, so this never recurses.
 */
function decideKind(plan: SamplePlan, block: MunicipalityBlock, index: number, row: number, col: number): KindDecision {
  const rolled = rolledKind(plan, index);
  const self = { ownerRow: row, ownerCol: col };
  if (rolled === 'secondary') {
    const owner = parcelAt(block, row, col - 2);
    if (owner >= 0 && rolledKind(plan, owner) === 'plain') return { kind: 'secondary', ownerRow: row, ownerCol: col - 2 };
    return { kind: 'plain', ...self };
  }
  if (rolled === 'leasehold') {
    const owner = parcelAt(block, row, col - 1);
    if (owner >= 0 && rolledKind(plan, owner) === 'plain') return { kind: 'leasehold', ownerRow: row, ownerCol: col - 1 };
    return { kind: 'leasehold', ...self };
  }
  return { kind: rolled, ...self };
}

interface Slot {
  gardsnummer: number;
  bruksnummer: number;
  /** A second bruksnummer of the same gård that no grid cell uses (for shared teigs). */
  spareBruksnummer: number;
}

/** Gård/bruk numbering: gård blocks of GARD_ROWS x GARD_COLS cells, bruk numbers within. */
function slotAt(plan: SamplePlan, block: MunicipalityBlock, row: number, col: number): Slot {
  const gardsPerRow = Math.ceil(block.cols / GARD_COLS);
  const gardsnummer = block.gardsnummerBase + Math.floor(row / GARD_ROWS) * gardsPerRow + Math.floor(col / GARD_COLS);
  const offset = Math.floor(noise(plan.seedHash, Channel.bruksnummerOffset, block.municipality.ordinal, gardsnummer) * 300);
  const within = (row % GARD_ROWS) * GARD_COLS + (col % GARD_COLS);
  const perGard = GARD_ROWS * GARD_COLS;
  return { gardsnummer, bruksnummer: offset + within + 1, spareBruksnummer: offset + perGard + within + 1 };
}

function unit(kommunenummer: string, g: number, b: number, f: number, s: number, hovedteig: boolean): SampleUnit {
  const parts = { kommunenummer, gardsnummer: g, bruksnummer: b, festenummer: f, seksjonsnummer: s };
  return { ...parts, hovedteig, cadastreId: formatCadastreId(parts) };
}

const two = (n: number) => String(n).padStart(2, '0');

function utcParts(seconds: number): [string, string, string, string, string, string] {
  const d = new Date(seconds * 1000);
  return [String(d.getUTCFullYear()), two(d.getUTCMonth() + 1), two(d.getUTCDate()), two(d.getUTCHours()), two(d.getUTCMinutes()), two(d.getUTCSeconds())];
}

function randomSeconds(rng: Rng, from: number, to: number): number {
  return from + Math.floor(rng() * (to - from));
}

/** `dd.MM.yyyy HH:mm:ss`, the address CSV's date form. */
export function formatCsvDate(seconds: number): string {
  const [y, mo, d, h, mi, s] = utcParts(seconds);
  return `${d}.${mo}.${y} ${h}:${mi}:${s}`;
}

function formatIsoDate(seconds: number): string {
  const [y, mo, d, h, mi, s] = utcParts(seconds);
  return `${y}-${mo}-${d}T${h}:${mi}:${s}`;
}

const upperNames = new Map<string, string>();
function upperName(name: string): string {
  let upper = upperNames.get(name);
  if (upper === undefined) upperNames.set(name, (upper = name.toLocaleUpperCase('nb-NO')));
  return upper;
}

/** A point strictly inside the teig and outside its hole (see parcel-grid.ts for why). */
function addressPoint(rng: Rng, block: MunicipalityBlock, frame: CellFrame, hasHole: boolean): Point {
  const margin = ADDRESS_MARGIN * block.cell;
  const clearance = HOLE_CLEARANCE * block.cell;
  for (let attempt = 0; attempt < 32; attempt++) {
    const east = frame.west + margin + rng() * (frame.east - frame.west - 2 * margin);
    const north = frame.south + margin + rng() * (frame.north - frame.south - 2 * margin);
    if (hasHole && Math.abs(east - frame.centreEast) < clearance && Math.abs(north - frame.centreNorth) < clearance) continue;
    return [round2(east), round2(north)];
  }
  return [round2(frame.centreEast), round2(frame.centreNorth + 0.25 * (frame.north - frame.south))];
}

/** (slot, bokstav) pairs for k addresses: distinct house numbers, letters when they run out. */
function numbering(rng: Rng, count: number): [number, string][] {
  const out: [number, string][] = [];
  if (count > NUMBER_SLOTS) {
    const doubled = count - NUMBER_SLOTS;
    for (let s = 0; s < NUMBER_SLOTS; s++) {
      if (s < doubled) out.push([s, 'A'], [s, 'B']);
      else out.push([s, '']);
    }
  } else if (count >= 2 && rng() < 0.06) {
    out.push([0, 'A'], [0, 'B']);
    for (let s = 1; s <= count - 2; s++) out.push([s, '']);
  } else {
    for (let s = 0; s < count; s++) out.push([s, '']);
  }
  return out;
}

export interface BuildOptions {
  /** Skip the addresses (the GML pass does not need them); everything else is identical. */
  withAddresses?: boolean;
}

export function buildParcel(plan: SamplePlan, index: number, options: BuildOptions = {}): SampleParcel {
  // On a later night an added teig takes a removed one's cell, and a changed one draws anew.
  const { block, row, col } = locateParcel(plan, hostOf(plan.night, index));
  const municipality = block.municipality;
  const k = municipality.kommunenummer;
  const rng = parcelRng(itemSeed(plan.seed, plan.night, index), index);

  // Units (matrikkelenheter) on this teig.
  const decision = decideKind(plan, block, index, row, col);
  const own = slotAt(plan, block, row, col);
  const owner = decision.ownerRow === row && decision.ownerCol === col ? own : slotAt(plan, block, decision.ownerRow, decision.ownerCol);
  let units: SampleUnit[];
  let matrikkelnummerTekst: string;
  switch (decision.kind) {
    case 'secondary':
      units = [unit(k, owner.gardsnummer, owner.bruksnummer, 0, 0, false)];
      matrikkelnummerTekst = `${owner.gardsnummer}/${owner.bruksnummer}`;
      break;
    case 'shared':
      units = [
        unit(k, own.gardsnummer, own.bruksnummer, 0, 0, true),
        unit(k, own.gardsnummer, own.spareBruksnummer, 0, 0, true),
      ];
      matrikkelnummerTekst = `${own.gardsnummer}/${own.bruksnummer},${own.spareBruksnummer}`;
      break;
    case 'sectioned': {
      const sections = intBetween(rng, 2, 12);
      units = [];
      for (let s = 1; s <= sections; s++) units.push(unit(k, own.gardsnummer, own.bruksnummer, 0, s, true));
      matrikkelnummerTekst = `${own.gardsnummer}/${own.bruksnummer}`;
      break;
    }
    case 'leasehold': {
      const festenummer = intBetween(rng, 1, 4);
      units = [unit(k, owner.gardsnummer, owner.bruksnummer, festenummer, 0, true)];
      matrikkelnummerTekst = `${owner.gardsnummer}/${owner.bruksnummer}/${festenummer}`;
      break;
    }
    default:
      units = [unit(k, own.gardsnummer, own.bruksnummer, 0, 0, true)];
      matrikkelnummerTekst = `${own.gardsnummer}/${own.bruksnummer}`;
  }

  // Geometry.
  const exterior = parcelExterior(plan, block, row, col);
  const frame = cellFrame(block, row, col);
  const hasHole = noise(plan.seedHash, Channel.parcelHole, index) < HOLE_SHARE;
  const holes = hasHole ? [holeRing(block, frame)] : [];
  let area = ringArea(exterior);
  for (const hole of holes) area -= Math.abs(ringArea(hole));
  const representasjonspunkt: Point = hasHole
    ? [round2(frame.centreEast), round2(frame.centreNorth + 0.25 * (frame.north - frame.south))]
    : [round2(frame.centreEast), round2(frame.centreNorth)];

  const teigId = TEIG_ID_BASE + index;
  const versjonId = intBetween(rng, 1, 4);
  const oppdateringsdato = formatIsoDate(randomSeconds(rng, TEIG_DATE_FROM, TEIG_DATE_TO));
  const accuracy = rng();
  const noyaktighetsklasseTeig = accuracy < 0.55 ? 'Grønt' : accuracy < 0.9 ? 'Gult' : 'Rødt';

  // Land is decided by stateless noise, so no draw of the parcel's stream moves.
  const landShare = isFeatured(k) ? plan.mix.landShare.featured : plan.mix.landShare.other;
  const land = decision.kind === 'plain' && landShare > 0 && noise(plan.seedHash, Channel.landParcel, index) < landShare;

  const parcel: SampleParcel = {
    index,
    teigId,
    kommunenummer: k,
    kommunenavn: municipality.kommunenavn,
    kind: decision.kind,
    row,
    col,
    units,
    matrikkelnummerTekst,
    teigMedFlereMatrikkelenheter: decision.kind === 'shared',
    exterior,
    holes,
    representasjonspunkt,
    area,
    lagretBeregnetAreal: Math.round(area * 10) / 10,
    noyaktighetsklasseTeig,
    uuidTeig: deterministicUuid(`teig/${plan.seed}/${teigId}`),
    versjonId,
    oppdateringsdato,
    land,
    mix: plan.mix,
    addresses: [],
  };
  // Addresses come last: skipping them leaves every draw above unchanged.
  if (options.withAddresses !== false) parcel.addresses = buildAddresses(plan, block, parcel, rng, frame, hasHole);
  return parcel;
}

function buildAddresses(
  plan: SamplePlan,
  block: MunicipalityBlock,
  parcel: SampleParcel,
  rng: Rng,
  frame: CellFrame,
  hasHole: boolean,
): SampleAddress[] {
  const municipality = block.municipality;
  const { row, col } = parcel;
  let count: number;
  let matrikkeladresse = false;
  switch (parcel.kind) {
    case 'secondary':
      count = rng() < 0.2 ? 1 : 0;
      break;
    case 'sectioned':
      count = weightedIndex(rng, SECTIONED_ADDRESS_WEIGHTS);
      break;
    case 'leasehold':
      count = weightedIndex(rng, LEASEHOLD_ADDRESS_WEIGHTS);
      break;
    case 'plain':
      if (parcel.land) return [];
      if (rng() < (isFeatured(municipality.kommunenummer) ? 0.005 : 0.05)) {
        matrikkeladresse = true;
        count = rng() < 0.7 ? 1 : 2;
        break;
      }
      count = weightedIndex(rng, plan.mix.plainAddressWeights);
      break;
    default:
      count = weightedIndex(rng, plan.mix.plainAddressWeights);
  }
  if (count === 0) return [];

  const band = Math.floor(row / STREET_ROWS);
  const segment = Math.floor(col / STREET_COLS);
  const segmentsPerBand = Math.ceil(block.cols / STREET_COLS);
  const streetIndex = band * segmentsPerBand + segment;
  const postalZone = Math.floor(band / 3) * Math.ceil(segmentsPerBand / 2) + Math.floor(segment / 2);
  const postCode = postnummer(municipality.kommunenummer, postalZone);
  const postPlace = poststed(municipality, postCode);
  const districts = districtsFor(plan.seedHash, municipality, block.cols, row, col);
  const kommunenavn = upperName(municipality.kommunenavn);

  const addresses: SampleAddress[] = [];
  const base = {
    parcelIndex: parcel.index,
    kommunenummer: municipality.kommunenummer,
    kommunenavn,
    postnummer: postCode,
    poststed: postPlace,
    districts,
  };
  const finish = (j: number, fields: Omit<SampleAddress, keyof typeof base | 'adresseId' | 'east' | 'north' | 'oppdateringsdato' | 'uuidAdresse'>) => {
    const adresseId = ADDRESS_ID_BASE + parcel.index * 10 + j;
    const [east, north] = addressPoint(rng, block, frame, hasHole);
    addresses.push({
      adresseId,
      ...base,
      ...fields,
      east,
      north,
      oppdateringsdato: formatCsvDate(randomSeconds(rng, ADDRESS_DATE_FROM, ADDRESS_DATE_TO)),
      uuidAdresse: deterministicUuid(`adresse/${plan.seed}/${adresseId}`),
    });
  };

  if (matrikkeladresse) {
    const u = parcel.units[0];
    for (let j = 0; j < count; j++) {
      const undernummer = count > 1 ? j + 1 : null;
      const festenummer = u.festenummer > 0 ? u.festenummer : null;
      const tekst = `${u.gardsnummer}/${u.bruksnummer}${festenummer ? `/${festenummer}` : ''}${undernummer ? `-${undernummer}` : ''}`;
      finish(j, {
        adressetype: 'matrikkeladresse',
        adressekode: null,
        adressenavn: null,
        nummer: null,
        bokstav: null,
        gardsnummer: u.gardsnummer,
        bruksnummer: u.bruksnummer,
        festenummer,
        undernummer,
        adresseTekst: tekst,
      });
    }
    return addresses;
  }

  const adressenavn = streetName(streetIndex, block.streetNameOffset, block.nynorsk);
  const adressekode = 1000 + streetIndex * 5 + Math.floor(noise(plan.seedHash, Channel.streetCode, municipality.ordinal, streetIndex) * 5);
  const slotBase = (col % STREET_COLS) * NUMBER_SLOTS;
  const side = row % STREET_ROWS; // 0: odd numbers, 1: even numbers
  numbering(rng, count).forEach(([slot, letter], j) => {
    const u = parcel.kind === 'shared' ? parcel.units[j % 2] : parcel.units[0];
    const nummer = 2 * (slotBase + slot) + 1 + side;
    finish(j, {
      adressetype: 'vegadresse',
      adressekode,
      adressenavn,
      nummer,
      bokstav: letter || null,
      gardsnummer: u.gardsnummer,
      bruksnummer: u.bruksnummer,
      festenummer: u.festenummer > 0 ? u.festenummer : null,
      undernummer: null,
      adresseTekst: `${adressenavn} ${nummer}${letter}`,
    });
  });
  return addresses;
}

export interface SampleParcelsOptions {
  parcels?: number;
  seed?: string | number;
  withAddresses?: boolean;
}

export function normalizeSeed(seed: string | number | undefined): string {
  return seed === undefined ? DEFAULT_SEED : String(seed);
}

/** Every parcel of the sample, in file order, generated one at a time. */
export function* sampleParcels(options: SampleParcelsOptions = {}): Generator<SampleParcel> {
  const plan = planSample(options.parcels ?? DEFAULT_PARCELS, normalizeSeed(options.seed));
  yield* parcelsOfPlan(plan, { withAddresses: options.withAddresses });
}

/**
 * Every parcel of the plan in order. While the generator shares a window of built parcels
 * (plan.window), they come from it, with their addresses even when `withAddresses` is false
 * (writers that skip addresses never read them; every other field is identical).
 */
export function* parcelsOfPlan(plan: SamplePlan, options: BuildOptions = {}): Generator<SampleParcel> {
  const positions = nightPositions(plan.night, plan.parcels);
  if (plan.window) {
    for (const parcel of plan.window.pass(positions)) if (isPresent(plan.night, parcel.index)) yield parcel;
    return;
  }
  for (let i = 0; i < positions; i++) if (isPresent(plan.night, i)) yield buildParcel(plan, i, options);
}
