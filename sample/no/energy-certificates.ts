/**
 * Sample Enova energy certificates, written as Enova's bulk CSV (24 columns, `,`, quoted where
 * needed, CRLF) with the file's real quirks: Knr and Postnummer written as integers (leading
 * zeros lost), the fossil share with a decimal comma in quotes, 7 fractional seconds, heating
 * grades as English colour names, some organisation numbers written `### ### ###`.
 *
 * Coherent with the sample's buildings (`sampleBuildingsOf`): dwellings get a certificate per
 * bruksenhet (on the section a flat belongs to), non-residential buildings one per building,
 * holiday homes, annexes and buildings under construction none. Issued after the building was
 * taken into use, rated by its age.
 */
import seedrandom from 'seedrandom';
import { ENOVA_COLUMNS } from '../../sources/no/energy/parse.js';
import { ENERGY_FILE_NAME } from '../../sources/no/energy/adapter.js';
import { parcelsOfPlan } from '../parcels.js';
import type { SamplePlan } from '../plan.js';
import { intBetween, pick, weightedIndex, type Rng } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import type { SampleAddress, SampleParcel } from '../types.js';
import { sampleBuildingsOf, type SampleBuilding } from './buildings.js';
import { sampleCompaniesOfParcel } from './companies.js';
import { dayOfYear, writePieces } from './sample-text.js';

/** Share of other buildings with a certificate; of dwellings (one is needed to sell or let) it is the plan's mix. */
const NON_RESIDENTIAL_SHARE = 0.6;
/** Certificate numbers: unique per parcel slot, as bruksenhet ids are. */
const SLOTS_PER_PARCEL = 64;

/** Enova's building categories (Bygningskategori) for the sample's building types. */
function categoryOf(typeCode: string): string | null {
  const code = Number(typeCode);
  if (code >= 111 && code <= 136) return 'Småhus';
  if (code >= 141 && code <= 159) return 'Boligblokk';
  if (code >= 211 && code <= 249) return 'Lett industri, verksteder';
  if (code >= 311 && code <= 319) return 'Kontorbygg';
  if (code >= 321 && code <= 330) return 'Forretningsbygg';
  if (code >= 511 && code <= 539) return 'Hotellbygg';
  if (code === 612 || code === 613) return 'Skolebygg';
  if (code >= 611 && code <= 619) return 'Barnehage';
  if (code >= 621 && code <= 629) return 'Universitets- og høgskolebygg';
  if (code >= 641 && code <= 669) return 'Kulturbygg';
  if (code >= 671 && code <= 679) return 'Idrettsbygg';
  if (code >= 719 && code <= 729) return 'Sykehjem';
  if (code >= 731 && code <= 739) return 'Sykehus';
  return null;
}

/** Energy label by building age: new buildings rate A–C, pre-war ones mostly E–G. */
function labelFor(rng: Rng, builtYear: number): string {
  const weights = builtYear >= 2017 ? [25, 45, 25, 5, 0, 0, 0] : builtYear >= 1997 ? [2, 15, 35, 30, 12, 4, 2] : builtYear >= 1970 ? [0, 3, 15, 30, 30, 15, 7] : [0, 1, 5, 15, 30, 27, 22];
  return 'ABCDEFG'[weightedIndex(rng, weights)];
}
const HEATING = ['Red', 'Orange', 'Yellow', 'LightGreen', 'Green'];

const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const decimalComma = (value: number) => `"${value.toFixed(2).replace('.', ',')}"`;

interface Certificate {
  building: SampleBuilding;
  cadastreId: string;
  unitNumber: string;
  address: SampleAddress | undefined;
  organisasjonsnummer: string;
}

function certificatesOf(parcel: SampleParcel, seed: string, seedHash: number, rng: Rng): Certificate[] {
  const certificates: Certificate[] = [];
  const addressById = new Map(parcel.addresses.map((a) => [a.adresseId, a]));
  for (const building of sampleBuildingsOf(parcel, seedHash)) {
    const category = categoryOf(building.typeCode);
    if (!category || building.builtYear === null || building.units.length === 0) continue;
    if (category === 'Småhus' || category === 'Boligblokk') {
      for (const unit of building.units) {
        if (rng() >= parcel.mix.dwellingCertificateShare) continue;
        certificates.push({ building, cadastreId: unit.cadastreId, unitNumber: unit.unitNumber, address: addressById.get(unit.addressId ?? -1), organisasjonsnummer: '' });
      }
    } else if (rng() < NON_RESIDENTIAL_SHARE) {
      // The owner orders it; the sample's company registered at the parcel stands in for the owner.
      const owner = sampleCompaniesOfParcel(seed, parcel).find((company) => company.kind === 'enhet');
      const orgnr = owner?.truth.organisasjonsnummer ?? '';
      const written = orgnr && rng() < 0.2 ? `${orgnr.slice(0, 3)} ${orgnr.slice(3, 6)} ${orgnr.slice(6)}` : orgnr;
      certificates.push({ building, cadastreId: building.cadastreId, unitNumber: '', address: addressById.get(building.units[0].addressId ?? -1), organisasjonsnummer: written });
    }
  }
  return certificates;
}

function csvRow(certificate: Certificate, sequence: number, rng: Rng): string {
  const { building, address } = certificate;
  const [knr, gnr, bnr, fnr, snr] = certificate.cadastreId.split('-');
  const builtYear = building.builtYear ?? 2025;
  const issuedYear = intBetween(rng, Math.max(2010, builtYear), 2025);
  const issued = `${dayOfYear(issuedYear, intBetween(rng, 0, issuedYear === 2025 ? 300 : 364))}T${String(intBetween(rng, 7, 21)).padStart(2, '0')}:${String(intBetween(rng, 0, 59)).padStart(2, '0')}:${String(intBetween(rng, 0, 59)).padStart(2, '0')}.${String(intBetween(rng, 0, 9_999_999)).padStart(7, '0')}`;
  const label = labelFor(rng, builtYear);
  const energy = 60 + 'ABCDEFG'.indexOf(label) * 45 + rng() * 40;
  const heating = HEATING[Math.min(4, Math.max(0, weightedIndex(rng, [10, 25, 35, 20, 10]) + (builtYear >= 2010 ? 1 : 0)))];
  const assessed = rng() < 0.15;
  return [
    String(Number(knr)), // written as an integer: 0301 → 301
    gnr, bnr, snr === '0' ? '' : snr, fnr === '0' ? '' : fnr,
    '',
    String(building.buildingNumber),
    csvField(address?.adresseTekst ?? ''),
    address ? String(Number(address.postnummer)) : '',
    csvField(address?.poststed ?? ''),
    certificate.unitNumber,
    certificate.organisasjonsnummer,
    csvField(categoryOf(building.typeCode) ?? ''),
    String(builtYear),
    label,
    heating,
    issued,
    certificate.unitNumber ? 'Simple' : 'Advanced',
    `Energiattest-${issuedYear}-${sequence}`,
    energy.toFixed(2),
    decimalComma(heating === 'Red' ? 0.3 + rng() * 0.6 : rng() * 0.2),
    pick(rng, ['Tre', 'Mur', 'Betong', 'Stål']),
    assessed ? 'True' : 'False',
    assessed ? `${issued.slice(0, 10)}T00:00:00.0000000` : '',
  ].join(',');
}

export function* energyCsvPieces(plan: SamplePlan, stats: { rows: number }): Generator<string> {
  yield `${ENOVA_COLUMNS.join(',')}\r\n`;
  for (const parcel of parcelsOfPlan(plan)) {
    const rng = seedrandom.alea(`${plan.seed}#energy#${parcel.index}`);
    const certificates = certificatesOf(parcel, plan.seed, plan.seedHash, rng).slice(0, SLOTS_PER_PARCEL);
    if (!certificates.length) continue;
    let piece = '';
    certificates.forEach((certificate, k) => {
      piece += `${csvRow(certificate, parcel.index * SLOTS_PER_PARCEL + k, rng)}\r\n`;
    });
    stats.rows += certificates.length;
    yield piece;
  }
}

export const ENERGY_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: 'no-energy',
  country: 'NO',
  fileName: ENERGY_FILE_NAME,
  async write({ path, plan }) {
    const stats = { rows: 0 };
    await writePieces(path, energyCsvPieces(plan, stats));
    return stats;
  },
};
