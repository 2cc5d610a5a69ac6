/**
 * Sample companies for the Brønnøysund Enhetsregisteret: main units (enheter) and sub-units
 * (underenheter) at REAL sample addresses, each record in the register's JSON shape, with the
 * spelling noise the real register has in its address lines (case, `gt.` for `gata`, `vn.` for
 * `veien`, a missing letter, postal place variants, c/o lines).
 *
 * Every company is derived from its parcel's index alone (its own seeded stream), so the files
 * stream in one pass and any later work (tenants matching, land-register owners) can regenerate
 * the same companies and their TRUTH: the sample address each one really sits at.
 */
import seedrandom from 'seedrandom';
import { formatCadastreId } from '../../sources/no/cadastre-id.js';
import { orgNumberCheckDigit } from '../../sources/no/org-number.js';
import { parcelsOfPlan } from '../parcels.js';
import type { SamplePlan } from '../plan.js';
import { pick, type Rng } from '../random.js';
import type { SampleAddress, SampleParcel } from '../types.js';

/** A Brreg address object (`forretningsadresse`, `beliggenhetsadresse`, `postadresse`). */
export interface BrregAddress {
  land: string;
  landkode: string;
  postnummer: string;
  poststed: string;
  adresse: string[];
  kommune: string;
  kommunenummer: string;
}

/** The fields of an enhet / underenhet record the sample writes, in the register's names. */
export interface BrregRecord {
  organisasjonsnummer: string;
  navn: string;
  organisasjonsform: { kode: string; beskrivelse: string; links: [] };
  hjemmeside?: string;
  postadresse?: BrregAddress;
  registreringsdatoEnhetsregisteret: string;
  registrertIMvaregisteret: boolean;
  naeringskode1: { beskrivelse: string; kode: string };
  antallAnsatte: number;
  harRegistrertAntallAnsatte: boolean;
  overordnetEnhet?: string;
  forretningsadresse?: BrregAddress;
  beliggenhetsadresse?: BrregAddress;
  stiftelsesdato?: string;
  oppstartsdato?: string;
  links: [];
}

export type CompanyKind = 'enhet' | 'underenhet';

/** Where a company really is: the input the tenants matching must recover from the noisy spelling. */
export interface CompanyTruth {
  organisasjonsnummer: string;
  kind: CompanyKind;
  /** The sample address (`adresseId` of the address CSV) the business / location address means. */
  adresseId: number;
  /** Its clean spelling, as the address register writes it. */
  adresseTekst: string;
  postnummer: string;
  kommunenummer: string;
  parcelIndex: number;
  /** The property the address belongs to, normal form. */
  cadastreId: string;
}

export interface SampleCompany {
  kind: CompanyKind;
  record: BrregRecord;
  truth: CompanyTruth;
}

/** Chance that a main unit has a sub-unit; that an address hosts a main unit is the plan's mix (`mainUnitShare`). */
const SUB_UNIT_SHARE = 0.55;
/**
 * Org numbers: eight leading digits from this base up, 16 per parcel (8 addresses x 2 kinds),
 * below the parish councils' 97… numbers (districts.ts). A national sample has more parcels than
 * that range serves; the rest continue from 10 000 000 up to the land register's own 7… range
 * (valid check digits, though Brønnøysund itself issues only 8… and 9…).
 */
const ORG_BASE = 80_000_000;
const ORG_SLOTS_PER_PARCEL = 16;
const FIRST_RANGE_PARCELS = (97_000_000 - ORG_BASE) / ORG_SLOTS_PER_PARCEL;
const SECOND_RANGE_BASE = 10_000_000;
/** Parcels this numbering can serve before the eight digits run out. */
export const MAX_COMPANY_PARCELS = FIRST_RANGE_PARCELS + Math.floor((70_000_000 - SECOND_RANGE_BASE) / ORG_SLOTS_PER_PARCEL);

const LEGAL_FORMS: [weight: number, kode: string, beskrivelse: string][] = [
  [0.52, 'AS', 'Aksjeselskap'],
  [0.3, 'ENK', 'Enkeltpersonforetak'],
  [0.06, 'FLI', 'Forening/lag/innretning'],
  [0.04, 'NUF', 'Norskregistrert utenlandsk foretak'],
  [0.03, 'ANS', 'Ansvarlig selskap med solidarisk ansvar'],
  [0.02, 'DA', 'Selskap med delt ansvar'],
  [0.02, 'SA', 'Samvirkeforetak'],
  [0.01, 'STI', 'Stiftelse'],
];
const NON_PROFIT = new Set(['FLI', 'STI']);

/** Real SN2007 (NACE) codes and their Norwegian names. */
const NACE: [kode: string, beskrivelse: string][] = [
  ['70.220', 'Bedriftsrådgivning og annen administrativ rådgivning'],
  ['94.991', 'Aktiviteter i andre interesseorganisasjoner ikke nevnt annet sted'],
  ['68.209', 'Utleie av egen eller leid fast eiendom ellers'],
  ['41.200', 'Oppføring av bygninger'],
  ['43.210', 'Elektrisk installasjonsarbeid'],
  ['56.101', 'Drift av restauranter og kafeer'],
  ['47.111', 'Butikkhandel med bredt vareutvalg med hovedvekt på nærings- og nytelsesmidler'],
  ['62.010', 'Programmeringstjenester'],
  ['69.201', 'Regnskap og bokføring'],
  ['86.211', 'Allmenn legetjeneste'],
  ['96.021', 'Frisering og annen skjønnhetspleie'],
  ['49.410', 'Godstransport på vei'],
  ['71.129', 'Annen teknisk konsulentvirksomhet'],
  ['74.100', 'Spesialisert designvirksomhet'],
  ['64.202', 'Holdingselskaper ellers'],
];

const NAME_FIRST = ['Fjordlys', 'Nordkyst', 'Bjørkeli', 'Solgløtt', 'Havbris', 'Fjellheim', 'Granli', 'Lysglimt', 'Vestvind', 'Elvebakk', 'Måkeskjær', 'Tindeland', 'Kvitstein', 'Ørneredet', 'Blåbærlia'];
const NAME_SECOND = ['Regnskap', 'Bygg', 'Eiendom', 'Consulting', 'Elektro', 'Kafé', 'Handel', 'Data', 'Transport', 'Design', 'Helse', 'Frisør', 'Holding', 'Invest', 'Service'];
const CO_NAMES = ['Hansen Regnskap AS', 'Advokatfirmaet Berg', 'Nilsen', 'Økonomihuset AS', 'Kari Johansen'];

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DATE_FROM = Date.UTC(1995, 0, 1);
const DATE_TO = Date.UTC(2024, 11, 31);
const DAY = 86_400_000;

function weighted<T extends [number, ...unknown[]]>(rng: Rng, items: readonly T[]): T {
  let u = rng() * items.reduce((sum, item) => sum + item[0], 0);
  for (const item of items) if ((u -= item[0]) < 0) return item;
  return items[items.length - 1];
}

/** A valid org number for a slot; a slot whose check digit would be 10 has none (as in the register). */
export function sampleOrgNumber(parcelIndex: number, slot: number): string | null {
  if (parcelIndex >= MAX_COMPANY_PARCELS) throw new RangeError(`the company sample numbers at most ${MAX_COMPANY_PARCELS} parcels`);
  const firstEight = String(
    parcelIndex < FIRST_RANGE_PARCELS ? ORG_BASE + parcelIndex * ORG_SLOTS_PER_PARCEL + slot : SECOND_RANGE_BASE + (parcelIndex - FIRST_RANGE_PARCELS) * ORG_SLOTS_PER_PARCEL + slot,
  );
  const check = orgNumberCheckDigit(firstEight);
  return check === null ? null : `${firstEight}${check}`;
}

/** The street part spelled as registrants type it: abbreviations, case, a dropped letter. */
function noisyStreet(rng: Rng, text: string): string {
  let spelled = text;
  const u = rng();
  if (u < 0.12) spelled = spelled.replace(/gata\b/, 'gt.').replace(/gate\b/, 'gt.');
  else if (u < 0.22) spelled = spelled.replace(/(veien|vegen)\b/, 'vn.');
  else if (u < 0.28) spelled = spelled.replace(/gata\b/, 'gate').replace(/veien\b/, 'vegen');
  else if (u < 0.34) {
    // a letter left out inside the street name (never the house number)
    const name = spelled.match(/^\D+/)?.[0] ?? '';
    if (name.length > 5) {
      const at = 1 + Math.floor(rng() * (name.length - 3));
      spelled = spelled.slice(0, at) + spelled.slice(at + 1);
    }
  }
  const v = rng();
  if (v < 0.15) spelled = spelled.toLocaleUpperCase('nb-NO');
  else if (v < 0.2) spelled = spelled.toLocaleLowerCase('nb-NO');
  return spelled;
}

/** Postal places as they appear: the register's upper case, title case, or `AA` for `Å`. */
function noisyPlace(rng: Rng, place: string): string {
  const u = rng();
  if (u < 0.1) return place.charAt(0) + place.slice(1).toLocaleLowerCase('nb-NO');
  if (u < 0.15 && place.includes('Å')) return place.replace(/Å/g, 'AA');
  return place;
}

/**
 * More of what registrants type, drawn from a stream of the company's own (so the companies,
 * their order and everything else drawn from the parcel's stream stay as they were): the Nordic
 * letters written without their marks (ø → o, å → a or aa, æ → ae) and the house letter apart
 * from the number or in lower case (`12 B`, `12b`).
 */
function registrantSpelling(rng: Rng, spelled: string): string {
  let text = spelled;
  const u = rng();
  if (u < 0.1) {
    const aa = rng() < 0.5;
    text = text.replace(/[øØåÅæÆ]/g, (c) => ({ ø: 'o', Ø: 'O', å: aa ? 'aa' : 'a', Å: aa ? 'AA' : 'A', æ: 'ae', Æ: 'AE' })[c] ?? c);
  }
  const v = rng();
  if (v < 0.08) text = text.replace(/(\d+)([A-Za-zÆØÅæøå])$/, '$1 $2');
  else if (v < 0.12) text = text.replace(/(\d+)([A-ZÆØÅ])$/, (_, n: string, l: string) => `${n}${l.toLocaleLowerCase('nb-NO')}`);
  else if (v < 0.3) text = text.replace(/(\d+)[A-ZÆØÅ]$/, '$1'); // the letter left out (of the few addresses that have one)
  return text;
}

/** A postal code off by one in a few: the neighbouring code, as after a postal reform or a slip. */
export const neighbouringPostalCode = (code: string) => String((Number(code) + 1) % 10_000).padStart(4, '0');

function businessAddress(rng: Rng, address: SampleAddress, spellingRng: Rng): BrregAddress {
  const lines = [registrantSpelling(spellingRng, noisyStreet(rng, address.adresseTekst))];
  if (rng() < 0.06) lines.unshift(`c/o ${pick(rng, CO_NAMES)}`);
  return {
    land: 'Norge',
    landkode: 'NO',
    postnummer: spellingRng() < 0.015 ? neighbouringPostalCode(address.postnummer) : address.postnummer,
    poststed: noisyPlace(rng, address.poststed),
    adresse: lines,
    kommune: address.kommunenavn,
    kommunenummer: address.kommunenummer,
  };
}

function postBox(rng: Rng, address: SampleAddress): BrregAddress {
  return {
    land: 'Norge',
    landkode: 'NO',
    postnummer: address.postnummer,
    poststed: address.poststed,
    adresse: [`Postboks ${1 + Math.floor(rng() * 9000)}`],
    kommune: address.kommunenavn,
    kommunenummer: address.kommunenummer,
  };
}

function truthOf(organisasjonsnummer: string, kind: CompanyKind, parcel: SampleParcel, address: SampleAddress): CompanyTruth {
  return {
    organisasjonsnummer,
    kind,
    adresseId: address.adresseId,
    adresseTekst: address.adresseTekst,
    postnummer: address.postnummer,
    kommunenummer: address.kommunenummer,
    parcelIndex: parcel.index,
    cadastreId: formatCadastreId({
      kommunenummer: address.kommunenummer,
      gardsnummer: address.gardsnummer,
      bruksnummer: address.bruksnummer,
      festenummer: address.festenummer ?? 0,
      seksjonsnummer: 0,
    }),
  };
}

/**
 * The companies of one parcel, main units before their sub-units. A pure function of the seed
 * and the parcel: the writers and any test or later register call it and get the same answer.
 */
export function sampleCompaniesOfParcel(seed: string, parcel: SampleParcel): SampleCompany[] {
  // Several register files read the same parcel's companies while the generator shares parcels.
  const made = madeCompanies.get(parcel);
  if (made && made.seed === seed) return made.companies;
  const companies = companiesOfParcel(seed, parcel);
  madeCompanies.set(parcel, { seed, companies });
  return companies;
}

const madeCompanies = new WeakMap<SampleParcel, { seed: string; companies: SampleCompany[] }>();

function companiesOfParcel(seed: string, parcel: SampleParcel): SampleCompany[] {
  const rng: Rng = seedrandom.alea(`${seed}#companies#${parcel.index}`);
  const companies: SampleCompany[] = [];
  parcel.addresses.forEach((address, j) => {
    if (rng() >= parcel.mix.mainUnitShare) return;
    const orgNumber = sampleOrgNumber(parcel.index, 2 * j);
    if (!orgNumber) return;
    const [, kode, beskrivelse] = weighted(rng, LEGAL_FORMS);
    const [naceKode, naceNavn] = pick(rng, NACE);
    const navn = `${pick(rng, NAME_FIRST)} ${pick(rng, NAME_SECOND)}${kode === 'ENK' ? '' : ` ${kode}`}`.toLocaleUpperCase('nb-NO');
    const founded = DATE_FROM + Math.floor(rng() * ((DATE_TO - DATE_FROM) / DAY)) * DAY;
    const employees = kode === 'ENK' ? Math.floor(rng() * 2) : Math.floor(rng() ** 3 * 60);
    const main: BrregRecord = {
      organisasjonsnummer: orgNumber,
      navn,
      organisasjonsform: { kode, beskrivelse, links: [] },
      ...(rng() < 0.35 ? { hjemmeside: `www.${navn.split(' ')[0].toLocaleLowerCase('nb-NO').replace(/[æøå]/g, 'a')}.no` } : {}),
      ...(rng() < 0.2 ? { postadresse: postBox(rng, address) } : {}),
      registreringsdatoEnhetsregisteret: isoDate(founded + 14 * DAY),
      registrertIMvaregisteret: kode !== 'FLI' && rng() < 0.6,
      naeringskode1: { beskrivelse: naceNavn, kode: naceKode },
      antallAnsatte: employees,
      harRegistrertAntallAnsatte: employees > 0,
      forretningsadresse: businessAddress(rng, address, seedrandom.alea(`${seed}#company-spelling#${orgNumber}`)),
      stiftelsesdato: isoDate(founded),
      links: [],
    };
    companies.push({ kind: 'enhet', record: main, truth: truthOf(orgNumber, 'enhet', parcel, address) });

    if (rng() >= SUB_UNIT_SHARE) return;
    const subNumber = sampleOrgNumber(parcel.index, 2 * j + 1);
    if (!subNumber) return;
    // Most sub-units sit where their main unit is registered; some at a neighbouring address.
    const location = rng() < 0.7 ? address : pick(rng, parcel.addresses);
    const sub: BrregRecord = {
      organisasjonsnummer: subNumber,
      navn,
      organisasjonsform: NON_PROFIT.has(kode)
        ? { kode: 'AAFY', beskrivelse: 'Virksomhet til ikke-næringsdrivende person', links: [] }
        : { kode: 'BEDR', beskrivelse: 'Bedrift', links: [] },
      registreringsdatoEnhetsregisteret: main.registreringsdatoEnhetsregisteret,
      registrertIMvaregisteret: false,
      naeringskode1: main.naeringskode1,
      antallAnsatte: employees,
      harRegistrertAntallAnsatte: employees > 0,
      overordnetEnhet: orgNumber,
      oppstartsdato: main.stiftelsesdato,
      beliggenhetsadresse: businessAddress(rng, location, seedrandom.alea(`${seed}#company-spelling#${subNumber}`)),
      links: [],
    };
    companies.push({ kind: 'underenhet', record: sub, truth: truthOf(subNumber, 'underenhet', parcel, location) });
  });
  return companies;
}

/** Every sample company of a plan with its truth, parcel by parcel (streamed). */
export function* sampleCompanies(plan: SamplePlan, kind?: CompanyKind): Generator<SampleCompany> {
  for (const parcel of parcelsOfPlan(plan)) {
    for (const company of sampleCompaniesOfParcel(plan.seed, parcel)) if (!kind || company.kind === kind) yield company;
  }
}
