/**
 * Registered sales of Swedish sample properties in nordprop's exchange format for
 * Lantmäteriet's price register (docs/exchange/se-transactions.md): the code tables, then one
 * JSON line per sale. About three properties in ten have changed hands once or twice; the
 * later sale's sellers are the earlier sale's buyers. Where an aktiebolag of the business sample
 * sits on the property, it is often the last buyer (its premises are its own), so companies own
 * property and tenants are owners. Prices come from the hidden price model
 * (sample/price-model.ts): the main building's purpose and footprint, the land, the place and
 * the purchase day.
 */
import path from 'node:path';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { salePrice, type PricedProperty, type PriceUse } from '../price-model.js';
import { parcelRng, pick, type Rng } from '../random.js';
import { writeTar } from '../tar-writer.js';
import { sampleSwedishCompaniesOf } from './companies.js';
import { isFeaturedSe, loadSwedishMunicipalities } from './municipalities.js';
import { isJointUnit, propertiesOfSwedishPlan, swedishPlanOf } from './properties.js';
import { withScratchDir, writeLines } from './text-file.js';
import type { SePoint, SeSampleProperty } from './types.js';

export const SE_TRANSACTIONS_FILE_NAME = 'fastighetspriser_0000_sverige.tar';
const SHARE = 0.3;
/** Of the sold properties an aktiebolag sits on, the share the company bought last. */
const COMPANY_BUYER_SHARE = 0.6;

const COUNTIES: Record<string, string> = {
  '01': 'Stockholms län', '03': 'Uppsala län', '04': 'Södermanlands län', '05': 'Östergötlands län', '06': 'Jönköpings län', '07': 'Kronobergs län',
  '08': 'Kalmar län', '09': 'Gotlands län', '10': 'Blekinge län', '12': 'Skåne län', '13': 'Hallands län', '14': 'Västra Götalands län',
  '17': 'Värmlands län', '18': 'Örebro län', '19': 'Västmanlands län', '20': 'Dalarnas län', '21': 'Gävleborgs län', '22': 'Västernorrlands län',
  '23': 'Jämtlands län', '24': 'Västerbottens län', '25': 'Norrbottens län',
};
const TRANSFERS = [['1', 'Köp'], ['2', 'Gåva'], ['3', 'Arv'], ['4', 'Byte']];
const OBJECT_TYPES = [['220', 'Småhusenhet, bebyggd'], ['320', 'Hyreshusenhet, bostäder och lokaler'], ['120', 'Lantbruksenhet, bebyggd']];
const FIRST_NAMES = ['Anna', 'Erik', 'Maria', 'Lars', 'Karin', 'Anders', 'Eva', 'Johan', 'Åsa', 'Per', 'Linnéa', 'Björn', 'Sofia', 'Oskar', 'Ingrid', 'Nils'];
const SURNAMES = ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson', 'Lindström', 'Öberg'];

type Party =
  | { typ: 'FYSISK_PERSON'; personId: string; namn: string; fodelsear: number; andel: { taljare: number; namnare: number } }
  | { typ: 'JURIDISK_PERSON'; organisationsnummer: string; namn: string; andel: { taljare: number; namnare: number } };

export interface SeSampleSale {
  kopId: string;
  cadastreId: string;
  kind: string;
  inskrivningsdag: string;
  kopeskilling: number | null;
  /** The personIds of the buyers that are people. */
  buyers: string[];
  /** The organisationsnummer (ten digits) of the buyers that are organisations: companies of the business sample. */
  buyerOrganisations: string[];
  line: object;
}

function people(rng: Rng, index: number, sale: number): Party[] {
  const count = rng() < 0.5 ? 2 : 1;
  return Array.from({ length: count }, (_, j) => ({
    typ: 'FYSISK_PERSON',
    personId: `se-p-${index}-${sale}-${j}`,
    namn: `${pick(rng, FIRST_NAMES)} ${pick(rng, SURNAMES)}`,
    fodelsear: 1940 + Math.floor(rng() * 60),
    andel: { taljare: 1, namnare: count },
  }));
}

/** An aktiebolag sitting on the property that buys it, or null: from a stream of its own, so the sale's other draws stay. */
function companyBuyer(property: SeSampleProperty, seed: string): Party | null {
  const company = sampleSwedishCompaniesOf(property, seed).find((c) => !c.soleTrader);
  if (!company || parcelRng(`${seed}#se-transactions-company`, property.index)() >= COMPANY_BUYER_SHARE) return null;
  // Written `556677-8899`, as the land register prints it.
  const number = `${company.identity.slice(0, 6)}-${company.identity.slice(6)}`;
  return { typ: 'JURIDISK_PERSON', organisationsnummer: number, namn: company.name, andel: { taljare: 1, namnare: 1 } };
}

/** Planar area of a closed ring, m². */
function ringArea(ring: readonly SePoint[]): number {
  let twice = 0;
  for (let i = 1; i < ring.length; i++) twice += ring[i - 1][0] * ring[i][1] - ring[i][0] * ring[i - 1][1];
  return Math.abs(twice) / 2;
}

function useOf(andamal: string | undefined): PriceUse {
  if (!andamal) return 'LAND';
  if (andamal.startsWith('Bostad;Småhus')) return 'HOUSE';
  if (andamal.startsWith('Bostad;')) return 'FLAT';
  if (andamal.startsWith('Verksamhet;')) return 'COMMERCIAL';
  if (andamal.startsWith('Industri;')) return 'INDUSTRIAL';
  return 'OTHER';
}

/** What the hidden price model (sample/price-model.ts) knows of a property: its main building's purpose and footprint, its land. */
export function pricedSwedishProperty(property: SeSampleProperty): PricedProperty {
  const main = property.buildings.find((b) => b.huvudbyggnad === 'Ja');
  const ring = property.areas[0].exterior;
  const east = (ring[0][0] + ring[2][0]) / 2, north = (ring[0][1] + ring[2][1]) / 2;
  return {
    country: 'SE', east, north, municipalityCode: property.kommunkod, urban: isFeaturedSe(property.kommunkod),
    use: useOf(main?.andamal[0]),
    floorAreaM2: main ? main.parts.reduce((sum, part) => sum + ringArea(part), 0) : 0,
    plotAreaM2: property.areas.reduce((sum, area) => sum + area.area, 0),
    builtYear: null,
    leasehold: false,
  };
}

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The sales of a property, oldest first (none for most), deterministic from the seed. */
export function sampleSalesOf(property: SeSampleProperty, seed: string): SeSampleSale[] {
  if (isJointUnit(property.kind)) return [];
  const rng = parcelRng(`${seed}#se-transactions`, property.index);
  if (rng() >= SHARE) return [];
  const count = rng() < 0.3 ? 2 : 1;
  const sales: SeSampleSale[] = [];
  let owners = people(rng, property.index, 0);
  const company = companyBuyer(property, seed);
  const priced = pricedSwedishProperty(property);
  // Sales from 2019 on, so most fall in the last five years before the sample's today (2025-10-31).
  let day = `${2019 + Math.floor(rng() * 3)}-0${1 + Math.floor(rng() * 9)}-1${Math.floor(rng() * 9)}`;
  for (let k = 0; k < count; k++) {
    const [fangeskod, fang] = rng() < 0.85 ? TRANSFERS[0] : pick(rng, TRANSFERS.slice(1));
    const [objekttyp] = property.kind === 'kvarter' ? OBJECT_TYPES[1] : OBJECT_TYPES[0];
    const persons = people(rng, property.index, k + 1);
    const buyers = company && k === count - 1 ? [company] : persons;
    const priceDraw = fang === 'Köp' || fang === 'Byte' ? rng() : null;
    const kopedatum = addDays(day, Math.floor(rng() * 600));
    const price = priceDraw === null ? null : salePrice(seed, priced, kopedatum, priceDraw, `se/${property.index}/${k}`);
    const inskrivningsdag = addDays(kopedatum, 10 + Math.floor(rng() * 40));
    const taxation = Math.round(((price ?? 2_000_000) * (0.6 + rng() * 0.2)) / 1000) * 1000;
    const kopId = `LM-${inskrivningsdag.slice(0, 4)}-${property.kommunkod}-${property.index}-${k}`;
    const line = {
      kopId,
      lanskod: property.lanskod,
      kommunkod: property.kommunkod,
      fastighetsbeteckning: property.designation.slice(property.kommunnamn.length + 1),
      registerenhetsreferens: property.registerenhetsreferens,
      fangeskod,
      objekttyp,
      ...(price === null ? {} : { kopeskilling: price }),
      ...(fang === 'Köp' ? { kopedatum } : {}),
      inskrivningsdag,
      andel: { taljare: 1, namnare: 1 },
      taxeringsenhet: { typkod: objekttyp, taxeringsvarde: taxation, taxeringsar: Number(inskrivningsdag.slice(0, 4)) - 1 },
      ...(price === null ? {} : { kopeskillingskoefficient: Math.round((price / taxation) * 100) / 100 }),
      kopare: buyers,
      saljare: owners,
    };
    sales.push({ kopId, cadastreId: property.cadastreId, kind: fang, inskrivningsdag, kopeskilling: price, buyers: buyers.flatMap((b) => (b.typ === 'FYSISK_PERSON' ? [b.personId] : [])),
      buyerOrganisations: buyers.flatMap((b) => (b.typ === 'JURIDISK_PERSON' ? [b.organisationsnummer.replace('-', '')] : [])), line });
    owners = buyers;
    day = inskrivningsdag;
  }
  return sales;
}

function* codeTable(rows: Iterable<[string, string]>): Generator<string> {
  yield 'KOD;BENAMNING\n';
  for (const [code, name] of rows) yield `${code};${name}\n`;
}

export async function writeSeTransactionsSample(context: SampleWriteContext): Promise<{ rows: number }> {
  const plan = swedishPlanOf(context);
  return withScratchDir(async (dir) => {
    const file = (name: string) => path.join(dir, name);
    await writeLines(file('K_LANKOD.txt'), codeTable(Object.entries(COUNTIES)));
    await writeLines(file('K_KOMKOD.txt'), codeTable(loadSwedishMunicipalities().map((m): [string, string] => [m.kommunkod, m.name])));
    await writeLines(file('K_FANGESKOD.txt'), codeTable(TRANSFERS as [string, string][]));
    await writeLines(file('K_OTYP.txt'), codeTable(OBJECT_TYPES as [string, string][]));
    const rows = await writeLines(file('fastighetspriser.jsonl'), (function* () {
      for (const property of propertiesOfSwedishPlan(plan)) for (const sale of sampleSalesOf(property, context.seed)) yield `${JSON.stringify(sale.line)}\n`;
    })());
    const members = ['K_LANKOD.txt', 'K_KOMKOD.txt', 'K_FANGESKOD.txt', 'K_OTYP.txt', 'fastighetspriser.jsonl'];
    await writeTar(context.path, members.map((name) => ({ name, file: file(name) })));
    return { rows };
  });
}

export const SE_TRANSACTIONS_SAMPLE_FILE: SampleRegisterFile = { sourceId: 'se-transactions', country: 'SE', fileName: SE_TRANSACTIONS_FILE_NAME, write: writeSeTransactionsSample };
