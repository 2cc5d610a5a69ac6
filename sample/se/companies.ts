/**
 * Swedish companies for the sample, at real sample addresses: about one property in four with
 * an address houses one or two. Each is written three ways, as the registers do:
 * - Bolagsverket's bulk file (UTF-8, `;`, quoted, `$`/`|` encoding): name, form, dates, and a
 *   postal address (often a box address elsewhere);
 * - SCB's bulk file (Latin-1, TAB): SNI codes and the address in register style (upper case,
 *   `GATAN` shortened to `G`, the letter run into the number: `STORG 12A`);
 * - SCB's workplaces (Latin-1, TAB): the visiting address as the street sign spells it.
 * `sampleSwedishCompaniesOf` keeps the truth (which property and address a company sits at) for
 * tenant matching and tests.
 */
import path from 'node:path';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { MAX_SE_COMPANIES_PER_PROPERTY } from '../profile.js';
import { dateBetween, parcelRng, pick, weightedIndex, type Rng } from '../random.js';
import { writeTar } from '../tar-writer.js';
import { propertiesOfSwedishPlan, swedishPlanOf } from './properties.js';
import { withScratchDir, writeLines } from './text-file.js';
import type { SeSampleProperty } from './types.js';

export const SE_BUSINESS_FILE_NAME = 'se_foretag_0000_bolagsverket_scb.tar';

const NAME_WORDS = ['Norr', 'Söder', 'Berg', 'Sjö', 'Ek', 'Lind', 'Björk', 'Gran', 'Fjäll', 'Älv', 'Ström', 'Dal', 'Ängs', 'Hav', 'Sol', 'Vind', 'Sten', 'Äng'];
const NAME_ENDINGS = ['Konsult', 'Bygg', 'Fastigheter', 'Data', 'Design', 'Handel', 'Redovisning', 'Teknik', 'Café', 'Frisör', 'Måleri', 'Transport'];
const FIRST_NAMES = ['Anna', 'Erik', 'Maria', 'Lars', 'Karin', 'Anders', 'Eva', 'Johan', 'Åsa', 'Per', 'Linnéa', 'Björn', 'Sofia', 'Oskar'];
const SURNAMES = ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson', 'Lindström', 'Öberg'];
/** SNI 2007 codes and the work they stand for (the ending above picks one). */
const SNI: Record<string, string> = {
  Konsult: '70220', Bygg: '41200', Fastigheter: '68204', Data: '62010', Design: '74101', Handel: '47190',
  Redovisning: '69201', Teknik: '71121', Café: '56101', Frisör: '96021', Måleri: '43341', Transport: '49410',
};

export interface SeSampleCompany {
  /** Bolagsverket's org_id: the organisationsnummer, or `<personnummer>-<löpnummer>` for a sole trader. */
  orgId: string;
  /** The ten digits both registers share. */
  identity: string;
  soleTrader: boolean;
  name: string;
  sni: string;
  /** Where it sits: the property and the address (truth for tenant matching). */
  cadastreId: string;
  addressId: string;
  /** The address as the street sign spells it (`Storgatan 12A`): the truth. */
  street: string;
  /** As SCB's business register writes it (`STORG 12A`, now and then `STORG 12 A`, `SODERG 4`, a typo). */
  registerStreet: string;
  /** The postal code as SCB writes it (`112 21` now and then, rarely the neighbouring code). */
  registerPostalCode: string;
  /** As the workplace register writes it: mostly the sign's spelling, some `Storg.`, `storgatan 12a`, `Soderg…`, typos. */
  visitingStreet: string;
  postalCode: string;
  postort: string;
  kommunkod: string;
  registered: string;
  workplaceId: string | null;
  postalBox: string | null;
}

function luhnDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * A unique organisationsnummer per company number `n`: an aktiebolag's `5`, third and fourth
 * digits of 20 or more as in every organisationsnummer (which keeps them apart from personnummer,
 * whose third and fourth digits are a month: SCB's file and the register key on the ten digits
 * alone), five serial digits and the check digit.
 */
export const organisationsnummer = (n: number) => {
  const block = Math.floor(n / 100_000);
  const body = `${55 + Math.floor(block / 80)}${20 + (block % 80)}${String(n % 100_000).padStart(5, '0')}`;
  return `${body}${luhnDigit(body)}`;
};
/** A unique personnummer per `n`: a birth date counted from 1950 and a three-digit serial. */
function personNumber(n: number): string {
  const born = new Date(Date.UTC(1950, 0, 1) + Math.floor(n / 1000) * 86_400_000);
  const body = `${born.toISOString().slice(2, 10).replace(/-/g, '')}${String(n % 1000).padStart(3, '0')}`;
  return `${body}${luhnDigit(body)}`;
}

/** `Storgatan 12 A` → `STORG 12A`: how the business register abbreviates and runs letters in. */
function registerStyle(street: string): string {
  return street.toLocaleUpperCase('sv-SE').replace(/GATAN\b/, 'G').replace(/VÄGEN\b/, 'V').replace(/(\d+)\s+([A-ZÅÄÖ])\b/, '$1$2');
}

/** Å, Ä, Ö written without their marks, as in files that went through a 7-bit system. */
const withoutMarks = (text: string) => text.replace(/[åäöÅÄÖéÉ]/g, (c) => ({ å: 'a', ä: 'a', ö: 'o', Å: 'A', Ä: 'A', Ö: 'O', é: 'e', É: 'E' })[c] ?? c);

/** One letter of the street name dropped (never a digit): the typo registers have in a few addresses. */
function dropLetter(rng: Rng, text: string): string {
  const name = text.match(/^\D+/)?.[0] ?? '';
  if (name.length <= 6) return text;
  const at = 1 + Math.floor(rng() * (name.length - 3));
  return text.slice(0, at) + text.slice(at + 1);
}

/**
 * The noise of the two spellings, from a stream of the company's own (the companies and what is
 * drawn for them stay as they were): missing marks, typos, case, `g.`/`v.` abbreviations, a
 * letter set apart from the number.
 */
function noisySpellings(seed: string, n: number, street: string, postalCode: string): { registerStreet: string; visitingStreet: string; registerPostalCode: string } {
  const rng = parcelRng(`${seed}#se-business-spelling`, n);
  // SCB's postal code: now and then written `112 21`, rarely the neighbouring code.
  const p = rng();
  const registerPostalCode = p < 0.1 ? `${postalCode.slice(0, 3)} ${postalCode.slice(3)}` : p < 0.12 ? String(Number(postalCode) + 10).padStart(5, '0') : postalCode;
  let register = registerStyle(street);
  if (rng() < 0.12) register = withoutMarks(register);
  if (rng() < 0.04) register = dropLetter(rng, register);
  if (rng() < 0.06) register = register.replace(/(\d+)([A-ZÅÄÖ])\b/, '$1 $2');
  let visiting = street;
  const u = rng();
  if (u < 0.1) visiting = visiting.replace(/gatan\b/, 'g.').replace(/vägen\b/, 'v.');
  else if (u < 0.15) visiting = visiting.replace(/gatan\b/, 'gata');
  if (rng() < 0.1) visiting = withoutMarks(visiting);
  if (rng() < 0.04) visiting = dropLetter(rng, visiting);
  const v = rng();
  if (v < 0.1) visiting = visiting.toLocaleLowerCase('sv-SE');
  else if (v < 0.15) visiting = visiting.toLocaleUpperCase('sv-SE');
  return { registerStreet: register, visitingStreet: visiting, registerPostalCode };
}

/** The companies at a property (none for most), deterministic from the seed. */
export function sampleSwedishCompaniesOf(property: SeSampleProperty, seed: string): SeSampleCompany[] {
  const address = property.addresses[0];
  if (!address) return [];
  const rng = parcelRng(`${seed}#se-business`, property.index);
  // How many, and the company numbers a property reserves, come from the plan's mix (sample/profile.ts).
  const { companyShare, companyCountWeights } = property.mix;
  if (rng() >= companyShare) return [];
  const count = companyCountWeights ? 1 + weightedIndex(rng, companyCountWeights) : rng() < 0.3 ? 2 : 1;
  const slots = companyCountWeights ? MAX_SE_COMPANIES_PER_PROPERTY : 2;
  const street = `${address.adressomrade} ${address.expectedHouseNumber}`;
  return Array.from({ length: count }, (_, k) => {
    const n = property.index * slots + k;
    const soleTrader = rng() < 0.2;
    const ending = pick(rng, NAME_ENDINGS);
    const person = `${pick(rng, FIRST_NAMES)} ${pick(rng, SURNAMES)}`;
    const name = soleTrader ? `${person.split(' ')[0]}s ${ending}` : `${pick(rng, NAME_WORDS)}${ending.toLocaleLowerCase('sv-SE')} AB`;
    const identity = soleTrader ? personNumber(n) : organisationsnummer(n);
    return {
      orgId: soleTrader ? `${identity}-1` : identity,
      identity,
      soleTrader,
      name,
      sni: SNI[ending],
      cadastreId: property.cadastreId,
      addressId: address.objektidentitet,
      street,
      postalCode: String(address.postnummer).padStart(5, '0'),
      ...noisySpellings(seed, n, street, String(address.postnummer).padStart(5, '0')),
      postort: address.postort,
      kommunkod: property.kommunkod,
      registered: dateBetween(rng, 1990, 2025),
      workplaceId: soleTrader ? null : String(10_000_000 + n),
      postalBox: !soleTrader && rng() < 0.3 ? `Box ${100 + (n % 9000)}` : null,
    };
  });
}

const quoted = (fields: string[]) => `${fields.map((f) => `"${f}"`).join(';')}\n`;
const tabbed = (fields: string[]) => `${fields.join('\t')}\n`;

function* bolagsverketLines(companies: () => Iterable<SeSampleCompany>): Generator<string> {
  yield 'organisationsidentitet;namnskyddslopnummer;registreringsland;organisationsnamn;organisationsform;avregistreringsdatum;avregistreringsorsak;pagandeAvvecklingsEllerOmstruktureringsforfarande;registreringsdatum;verksamhetsbeskrivning;postadress\n';
  for (const c of companies()) {
    const postal = c.postalBox ? `${c.postalBox}$$${c.postort}$${c.postalCode}$SE-LAND` : `${c.street}$$${c.postort}$${c.postalCode}$SE-LAND`;
    yield quoted([
      `${c.identity}$${c.soleTrader ? 'PERSON' : 'ORGNR'}-IDORG`, c.soleTrader ? '1' : '', 'SE-LAND', `${c.name}$${c.soleTrader ? 'NAMN' : 'FORETAGSNAMN'}-ORGNAM$${c.registered}`,
      c.soleTrader ? 'E-ORGFO' : 'AB-ORGFO', '', '', '', c.registered, '', postal,
    ]);
  }
}

function* scbLines(companies: () => Iterable<SeSampleCompany>): Generator<string> {
  yield tabbed(['PeOrgNr', 'Foretagsnamn', 'Namn', 'COAdress', 'Gatuadress', 'PostNr', 'PostOrt', 'JurForm', 'FtgStat', 'JEStat', 'Ng1', 'Ng2', 'Ng3', 'Ng4', 'Ng5', 'RegDatKtid']);
  for (const c of companies()) {
    yield tabbed([
      `${c.soleTrader ? (Number(c.identity.slice(0, 2)) > 25 ? '19' : '20') : '16'}${c.identity}`, c.name.toLocaleUpperCase('sv-SE'), '', '', c.registerStreet, c.registerPostalCode, c.postort,
      c.soleTrader ? '10' : '49', '1', '1', c.sni, '', '', '', '', c.registered.replace(/-/g, ''),
    ]);
  }
}

function* workplaceLines(companies: () => Iterable<SeSampleCompany>): Generator<string> {
  yield tabbed(['CFARNr', 'PeOrgNr', 'Benämning', 'BesöksAdress', 'BesöksPostNr', 'BesöksPostOrt', 'Kommun, kod', 'Arbetsställestatus, kod', 'Startdatum', 'Slutdatum']);
  for (const c of companies()) {
    if (!c.workplaceId) continue;
    yield tabbed([c.workplaceId, `16${c.identity}`, c.name, c.visitingStreet, c.postalCode, c.postort, c.kommunkod, '1', c.registered.replace(/-/g, ''), '']);
  }
}

export async function writeSeBusinessSample(context: SampleWriteContext): Promise<{ rows: number }> {
  const plan = swedishPlanOf(context);
  const companies = function* () {
    for (const property of propertiesOfSwedishPlan(plan)) yield* sampleSwedishCompaniesOf(property, context.seed);
  };
  return withScratchDir(async (dir) => {
    const files = {
      bolagsverket: path.join(dir, 'bolagsverket_bulkfil.txt'),
      scb: path.join(dir, 'scb_bulkfil_JE_20240101T000000_1.txt'),
      workplaces: path.join(dir, 'scb_arbetsstallen_20240101.txt'),
    };
    // The three at once, so the generator builds each property once for all of them.
    const [lines] = await Promise.all([
      writeLines(files.bolagsverket, bolagsverketLines(companies)),
      writeLines(files.scb, scbLines(companies), 'latin1'),
      writeLines(files.workplaces, workplaceLines(companies), 'latin1'),
    ]);
    const rows = lines - 1;
    await writeTar(context.path, Object.values(files).map((file) => ({ name: path.basename(file), file })));
    return { rows };
  });
}

export const SE_BUSINESS_SAMPLE_FILE: SampleRegisterFile = { sourceId: 'se-business', country: 'SE', fileName: SE_BUSINESS_FILE_NAME, write: writeSeBusinessSample };
