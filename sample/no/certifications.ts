/**
 * Sample environmental certifications in nordprop's exchange format (JSON Lines, see
 * schema/exchange/no-certification.schema.json), coherent with the sample's buildings: a few
 * large non-residential buildings carry BREEAM-NOR (new) or BREEAM In-Use (existing), some a
 * LEED or WELL certificate; a few new blocks of flats are Svanemerket.
 */
import seedrandom from 'seedrandom';
import { parseCadastreId } from '../../sources/no/cadastre-id.js';
import { CERTIFICATION_FILE_NAME } from '../../sources/no/certification/adapter.js';
import { parcelsOfPlan } from '../parcels.js';
import type { SamplePlan } from '../plan.js';
import { intBetween, weightedIndex, type Rng } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import { sampleBuildingsOf, type SampleBuilding } from './buildings.js';
import { dayOfYear, shiftDay, SAMPLE_TODAY, writePieces } from './sample-text.js';

/** Gross area from which a commercial building is a certification candidate, and the share certified. */
const LARGE_M2 = 1500;
const CERTIFIED_SHARE = 0.3;
const SWAN_SHARE = 0.05;

const BREEAM_RATINGS = [
  { rating: 'Pass', score: [30, 44], weight: 5 },
  { rating: 'Good', score: [45, 54], weight: 20 },
  { rating: 'Very Good', score: [55, 69], weight: 45 },
  { rating: 'Excellent', score: [70, 84], weight: 25 },
  { rating: 'Outstanding', score: [85, 95], weight: 5 },
];
const LEED_RATINGS = [
  { rating: 'Certified', score: [40, 49], weight: 20 },
  { rating: 'Silver', score: [50, 59], weight: 35 },
  { rating: 'Gold', score: [60, 79], weight: 35 },
  { rating: 'Platinum', score: [80, 95], weight: 10 },
];
const WELL_RATINGS = ['Bronze', 'Silver', 'Gold', 'Platinum'];

const isCommercial = (typeCode: string) => Number(typeCode) >= 211 && Number(typeCode) < 900;
const isNewBlockOfFlats = (building: SampleBuilding) => /^14\d$/.test(building.typeCode) && (building.builtYear ?? 0) >= 2012;

function scored(rng: Rng, table: typeof BREEAM_RATINGS) {
  const choice = table[weightedIndex(rng, table.map((t) => t.weight))];
  return { klassifisering: choice.rating, poengsum: Math.round((choice.score[0] + rng() * (choice.score[1] - choice.score[0])) * 10) / 10 };
}

/** Issued a year or two after the building was finished (never before the scheme existed, never after today). */
function certifiedOn(rng: Rng, fromYear: number): string {
  const date = dayOfYear(Math.min(2025, fromYear + intBetween(rng, 0, 2)), intBetween(rng, 0, 364));
  return date > SAMPLE_TODAY ? SAMPLE_TODAY : date;
}

function certificationOf(building: SampleBuilding, rng: Rng): object | null {
  const builtYear = building.builtYear;
  if (builtYear === null) return null;
  const base = { matrikkel: parseCadastreId(building.cadastreId), bygningsnummer: String(building.buildingNumber) };
  if (isNewBlockOfFlats(building)) {
    if (rng() >= SWAN_SHARE) return null;
    return {
      sertifikatnummer: `SVANE-5090-${building.buildingNumber}`, ordning: 'SVANEMERKET', versjon: '3.x', klassifisering: 'Svanemerket',
      sertifiseringsdato: certifiedOn(rng, builtYear), sertifisertAreal: building.grossAreaM2, sertifiseringsorgan: 'Miljømerking Norge', ...base,
    };
  }
  if (!isCommercial(building.typeCode) || building.grossAreaM2 < LARGE_M2 || rng() >= CERTIFIED_SHARE) return null;
  const scheme = weightedIndex(rng, [70, 12, 10, 8]);
  if (scheme === 0 || scheme === 1) {
    // BREEAM-NOR (from 2012) for buildings finished since; older ones are assessed in use.
    const inUse = builtYear < 2012 || scheme === 1;
    const date = certifiedOn(rng, Math.max(builtYear, inUse ? 2015 : 2012));
    return {
      sertifikatnummer: `${inUse ? 'BIU' : 'BREEAM-NOR'}-${building.buildingNumber}`,
      ordning: inUse ? 'BREEAM-IN-USE' : 'BREEAM-NOR',
      versjon: inUse ? 'v6' : date >= '2023' ? 'v6.0' : '2016',
      fase: inUse ? 'I drift' : 'Ferdigstillelse',
      ...scored(rng, BREEAM_RATINGS),
      sertifiseringsdato: date,
      ...(inUse ? { gyldigTil: shiftDay(date, 3 * 365) } : {}),
      sertifisertAreal: building.grossAreaM2,
      sertifiseringsorgan: inUse ? 'BRE' : 'Grønn Byggallianse',
      ...base,
    };
  }
  const date = certifiedOn(rng, Math.max(builtYear, 2010));
  if (scheme === 2) {
    return { sertifikatnummer: `LEED-${building.buildingNumber}`, ordning: 'LEED', versjon: 'v4 BD+C', ...scored(rng, LEED_RATINGS), sertifiseringsdato: date, sertifisertAreal: building.grossAreaM2, sertifiseringsorgan: 'GBCI', ...base };
  }
  return {
    sertifikatnummer: `WELL-${building.buildingNumber}`, ordning: 'WELL', versjon: 'v2', klassifisering: WELL_RATINGS[weightedIndex(rng, [20, 40, 30, 10])],
    sertifiseringsdato: date, gyldigTil: shiftDay(date, 3 * 365), sertifisertAreal: building.grossAreaM2, sertifiseringsorgan: 'IWBI', ...base,
  };
}

export function* certificationLines(plan: SamplePlan, stats: { rows: number }): Generator<string> {
  // Buildings need no addresses here, and building parcels without them is a quarter faster.
  for (const parcel of parcelsOfPlan(plan, { withAddresses: false })) {
    const rng = seedrandom.alea(`${plan.seed}#certification#${parcel.index}`);
    let piece = '';
    for (const building of sampleBuildingsOf(parcel, plan.seedHash)) {
      const record = certificationOf(building, rng);
      if (!record) continue;
      piece += `${JSON.stringify(record)}\n`;
      stats.rows += 1;
    }
    if (piece) yield piece;
  }
}

export const CERTIFICATION_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: 'no-certification',
  country: 'NO',
  fileName: CERTIFICATION_FILE_NAME,
  async write({ path, plan }) {
    const stats = { rows: 0 };
    await writePieces(path, certificationLines(plan, stats));
    return stats;
  },
};
