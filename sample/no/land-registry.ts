/**
 * Sample land register (the no-land-registry exchange file): one grunnboksblad for every
 * matrikkelenhet of the sample that can hold title — each plain property, each of the two units
 * of a shared teig, each festegrunn and each section of a sectioned property (a sectioned
 * property's whole unit has no hjemmelshaver of its own; its owners are its sections').
 *
 * Title holders are persons (names and birth years), couples with halves, a few sameier in
 * thirds and quarters, and organisations: a company registered at one of the parcel's own
 * addresses when the business sample has one there (its org number and name, so the
 * company-properties list joins up), otherwise a housing cooperative or property company with an
 * org number of its own. Each blad carries the transfer that gave the current holders title
 * (buyers = holders, with their shares) and sometimes older ones, priced by the hidden price
 * model (sample/price-model.ts) from the unit's buildings, floor area, age, place and the day.
 * Sale years lean towards recent ones, as turnover does.
 */
import seedrandom from 'seedrandom';
import { orgNumberCheckDigit } from '../../sources/no/org-number.js';
import { noLandRegistry } from '../../sources/no/land-registry/adapter.js';
import { isFeatured } from '../municipalities.js';
import { parcelsOfPlan } from '../parcels.js';
import { salePrice, type PricedProperty, type PriceUse } from '../price-model.js';
import { deterministicUuid, hashSeed, intBetween, pick, weightedIndex, type Rng } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import type { SampleParcel, SampleUnit } from '../types.js';
import { sampleBuildingsOf, type SampleBuilding, type SampleUseType } from './buildings.js';
import { sampleCompaniesOfParcel } from './companies.js';
import { dayOfYear, SAMPLE_TODAY, writePieces } from './sample-text.js';

const FIRST_NAMES = ['Kari', 'Ola', 'Ingrid', 'Lars', 'Anne', 'Per', 'Marit', 'Jon', 'Liv', 'Knut', 'Nora', 'Emil', 'Sofie', 'Jakob', 'Sigrid', 'Håkon', 'Astrid', 'Magnus', 'Solveig', 'Øystein', 'Ida', 'Henrik', 'Ragnhild', 'Tor', 'Maja', 'Eirik', 'Åse', 'Sander', 'Hilde', 'Bjørn'];
const SURNAMES = ['Hansen', 'Johansen', 'Olsen', 'Larsen', 'Andersen', 'Pedersen', 'Nilsen', 'Kristiansen', 'Jensen', 'Karlsen', 'Johnsen', 'Pettersen', 'Eriksen', 'Berg', 'Haugen', 'Hagen', 'Johannessen', 'Andreassen', 'Jacobsen', 'Dahl', 'Jørgensen', 'Halvorsen', 'Henriksen', 'Lund', 'Sørensen', 'Jakobsen', 'Moen', 'Gundersen', 'Iversen', 'Strand', 'Solberg', 'Svendsen', 'Eide', 'Knutsen', 'Martinsen', 'Paulsen', 'Bakken', 'Kristoffersen', 'Mathisen', 'Lie', 'Ødegård', 'Aasen'];
const ORG_NAMES = ['Boligsameiet', 'Eiendom', 'Utleie', 'Invest', 'Holding'];

type Holder =
  | { type: 'person'; personidentifikator: string; navn: string; fødselsår: number }
  | { type: 'organisasjon'; organisasjonsnummer: string; navn: string };
interface Share {
  teller: number;
  nevner: number;
}

/** Units that carry a grunnboksblad on this teig (a secondary teig's unit is written on its main teig). */
export function titledUnits(parcel: SampleParcel): SampleUnit[] {
  return parcel.kind === 'secondary' ? [] : parcel.units;
}

function person(rng: Rng, id: string, latestYear: number): Holder {
  return { type: 'person', personidentifikator: id, navn: `${pick(rng, FIRST_NAMES)} ${pick(rng, SURNAMES)}`, fødselsår: intBetween(rng, 1930, Math.min(2004, latestYear - 18)) };
}

/** An org number of the land-register sample's own (prefix 7, unused by the business sample) for parcel slot. */
function ownOrgNumber(parcelIndex: number, slot: number): string {
  for (let body = 70_000_000 + ((parcelIndex * 37 + slot * 7) % 9_999_000); ; body++) {
    const check = orgNumberCheckDigit(String(body));
    if (check !== null) return `${body}${check}`;
  }
}

/** Shares of n co-owners that add up to the whole. */
function sharesOf(count: number): Share[] {
  if (count === 1) return [{ teller: 1, nevner: 1 }];
  if (count === 2) return [{ teller: 1, nevner: 2 }, { teller: 1, nevner: 2 }];
  if (count === 3) return [{ teller: 2, nevner: 4 }, { teller: 1, nevner: 4 }, { teller: 1, nevner: 4 }];
  return Array.from({ length: count }, () => ({ teller: 1, nevner: count }));
}

/** What the hidden price model (sample/price-model.ts) knows of a unit: its buildings' use, floor area and age. */
export function pricedUnit(parcel: SampleParcel, unit: SampleUnit, buildings: readonly SampleBuilding[]): PricedProperty {
  // A section's building stands on the whole property it divides; its bruksenheter name the section.
  const standsOn = unit.seksjonsnummer > 0 ? unit.cadastreId.replace(/-\d+$/, '-0') : unit.cadastreId;
  const own = buildings.filter((b) => b.cadastreId === standsOn);
  const main = own.find((b) => b.isMainBuilding) ?? own[0];
  const bruksenheter = buildings.flatMap((b) => b.units).filter((u) => u.cadastreId === unit.cadastreId);
  const unitArea = bruksenheter.reduce((sum, u) => sum + u.usableAreaM2, 0);
  const floorArea = unitArea > 0 ? unitArea : unit.seksjonsnummer > 0 ? 0 : own.reduce((sum, b) => sum + b.usableAreaM2, 0);
  const use: PriceUse = !main || floorArea <= 0 ? 'LAND'
    : unit.seksjonsnummer > 0 ? (bruksenheter.some((u) => u.useType === 'NAERING') ? 'COMMERCIAL' : 'FLAT')
    : USE_OF[main.units[0]?.useType ?? 'ANNET'];
  const [east, north] = parcel.representasjonspunkt;
  return {
    country: 'NO', east, north, municipalityCode: parcel.kommunenummer, urban: isFeatured(parcel.kommunenummer), use,
    floorAreaM2: floorArea, plotAreaM2: parcel.area, builtYear: main?.builtYear ?? null, leasehold: unit.festenummer > 0,
  };
}

const USE_OF: Record<SampleUseType, PriceUse> = { BOLIG: 'HOUSE', FRITID: 'HOLIDAY', NAERING: 'COMMERCIAL', ANNET: 'OTHER' };

/** Sale years lean to recent ones (as turnover does): a uniform draw bent towards TODAY_YEAR. */
function saleYearOf(draw: number): number {
  return Math.min(TODAY_YEAR, 1985 + Math.floor((TODAY_YEAR - 1984) * Math.pow(draw, 0.5)));
}

const TRANSFER_KINDS = ['Fritt salg', 'Arv', 'Gave', 'Skifte'] as const;
const TRANSFER_WEIGHTS = [0.85, 0.07, 0.05, 0.03];
const TODAY_YEAR = Number(SAMPLE_TODAY.slice(0, 4));

export function sampleGrunnboksblad(seed: string, parcel: SampleParcel): Record<string, unknown>[] {
  const units = titledUnits(parcel);
  if (!units.length) return [];
  const rng = seedrandom.alea(`${seed}#land-registry#${parcel.index}`);
  const companies = sampleCompaniesOfParcel(seed, parcel).filter((company) => company.kind === 'enhet');
  const buildings = sampleBuildingsOf(parcel, hashSeed(seed));
  return units.map((unit, u) => {
    const priced = pricedUnit(parcel, unit, buildings);
    const priceOf = (day: string, k: number) => salePrice(seed, priced, day, rng(), `no/${parcel.index}/${u}/${k}`);
    const idOf = (k: number) => deterministicUuid(`person/${seed}/${parcel.index}/${u}/${k}`);
    const saleYear = saleYearOf(rng());
    const saleDay = saleYear === TODAY_YEAR ? dayOfYear(saleYear, intBetween(rng, 0, 280)) : dayOfYear(saleYear, intBetween(rng, 0, 364));

    let holders: Holder[];
    const roll = rng();
    if (roll < 0.1 && companies.length) {
      const company = companies[u % companies.length].record;
      holders = [{ type: 'organisasjon', organisasjonsnummer: company.organisasjonsnummer, navn: company.navn }];
    } else if (roll < 0.14) {
      holders = [{ type: 'organisasjon', organisasjonsnummer: ownOrgNumber(parcel.index, u), navn: `${pick(rng, SURNAMES).toLocaleUpperCase('nb-NO')} ${pick(rng, ORG_NAMES).toLocaleUpperCase('nb-NO')} AS` }];
    } else {
      const count = 1 + weightedIndex(rng, [0.45, 0.45, 0.06, 0.04]);
      holders = Array.from({ length: count }, (_, k) => person(rng, idOf(k), saleYear));
    }
    const shares = sharesOf(holders.length);
    const document = (year: number, k: number) => `${year}/${100_000 + ((parcel.index * 16 + u * 4 + k) % 9_000_000)}-1/200`;

    const sellers: Holder[] = Array.from({ length: rng() < 0.5 ? 2 : 1 }, (_, k) => person(rng, idOf(10 + k), saleYear));
    const sellerShares = sharesOf(sellers.length);
    const kind = TRANSFER_KINDS[weightedIndex(rng, TRANSFER_WEIGHTS)];
    const transfers: Record<string, unknown>[] = [
      {
        dokumentnummer: document(saleYear, 0),
        tinglysingsdato: saleDay,
        omsetningstype: kind,
        ...(kind === 'Fritt salg' ? { vederlag: { beløp: priceOf(saleDay, 0), valuta: 'NOK' } } : {}),
        andel: { teller: 1, nevner: 1 },
        kjøpere: holders.map((holder, k) => ({ rettighetshaver: holder, andel: shares[k] })),
        selgere: sellers.map((holder, k) => ({ rettighetshaver: holder, andel: sellerShares[k] })),
      },
    ];
    // An older sale in which today's sellers bought.
    if (saleYear > 1990 && rng() < 0.4) {
      const year = intBetween(rng, 1970, saleYear - 1);
      const day = dayOfYear(year, intBetween(rng, 0, 364));
      transfers.push({
        dokumentnummer: document(year, 1),
        tinglysingsdato: day,
        omsetningstype: 'Fritt salg',
        vederlag: { beløp: priceOf(day, 1), valuta: 'NOK' },
        andel: { teller: 1, nevner: 1 },
        kjøpere: sellers.map((holder, k) => ({ rettighetshaver: holder, andel: sellerShares[k] })),
        selgere: [{ rettighetshaver: person(rng, idOf(20), year) }],
      });
    }
    return {
      matrikkelenhet: {
        kommunenummer: unit.kommunenummer,
        gardsnummer: unit.gardsnummer,
        bruksnummer: unit.bruksnummer,
        festenummer: unit.festenummer,
        seksjonsnummer: unit.seksjonsnummer,
      },
      hjemmelshavere: holders.map((holder, k) => ({ rettighetshaver: holder, andel: shares[k], tinglysingsdato: saleDay, dokumentnummer: document(saleYear, 0) })),
      overdragelser: transfers,
    };
  });
}

export const LAND_REGISTRY_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: noLandRegistry.id,
  country: 'NO',
  fileName: noLandRegistry.inputFileName,
  async write({ path, plan, seed }) {
    let rows = 0;
    await writePieces(path, (function* () {
      for (const parcel of parcelsOfPlan(plan)) {
        for (const blad of sampleGrunnboksblad(seed, parcel)) {
          rows++;
          yield `${JSON.stringify(blad)}\n`;
        }
      }
    })());
    return { rows };
  },
};
