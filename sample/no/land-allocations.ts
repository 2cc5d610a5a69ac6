/**
 * Sample land allocations (the no-land-allocation exchange file): a few plots per sample
 * municipality, one per PARCELS_PER_ALLOCATION parcels, each on a real sample parcel (its
 * representative point). Half name their grunnkrets and postal code as the municipality's
 * announcement would; the other half give only the position, which the publish resolves
 * against the sample's area polygons.
 */
import seedrandom from 'seedrandom';
import { noLandAllocation } from '../../sources/no/land-allocation/adapter.js';
import { districtsFor } from '../districts.js';
import { buildParcel } from '../parcels.js';
import type { SamplePlan } from '../plan.js';
import { postalCodeAt } from './areas.js';
import { intBetween, pick } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import { dayOfYear, SAMPLE_TODAY, shiftDay, writePieces } from './sample-text.js';

const PARCELS_PER_ALLOCATION = 400;
const PURPOSES: [string, string][] = [['Bolig', 'Boligtomt'], ['Næring', 'Næringstomt'], ['Fritid', 'Hyttetomt'], ['Offentlig', 'Tomt for barnehage']];
const STATUSES = ['Kunngjort', 'Kunngjort', 'Under behandling', 'Tildelt', 'Avsluttet'];

export function* sampleLandAllocations(plan: SamplePlan): Generator<Record<string, unknown>> {
  for (const block of plan.blocks) {
    const k = block.municipality.kommunenummer;
    const rng = seedrandom.alea(`${plan.seed}#land-allocation#${k}`);
    const count = Math.max(1, Math.round(block.count / PARCELS_PER_ALLOCATION));
    for (let i = 0; i < count; i++) {
      const parcel = buildParcel(plan, block.firstParcel + Math.floor(rng() * block.count), { withAddresses: false });
      const [purpose, kind] = pick(rng, PURPOSES);
      const year = intBetween(rng, 2022, Number(SAMPLE_TODAY.slice(0, 4)));
      const announced = dayOfYear(year, intBetween(rng, 0, year === 2025 ? 250 : 330));
      const named = rng() < 0.5;
      const { grunnkrets } = districtsFor(plan.seedHash, block.municipality, block.cols, parcel.row, parcel.col);
      const postalCode = postalCodeAt(block, parcel.row, parcel.col);
      yield {
        tildelingsid: `${year}-${String(i + 1).padStart(3, '0')}`,
        kommunenummer: k,
        tittel: `${kind} ${parcel.matrikkelnummerTekst}, ${block.municipality.norwegianName}`,
        formål: purpose,
        status: pick(rng, STATUSES),
        areal_m2: Math.round(parcel.area * 10) / 10,
        ...(purpose === 'Offentlig' ? {} : { pris: { beløp: Math.round((parcel.area * intBetween(rng, 800, 6000)) / 1000) * 1000, valuta: 'NOK' } }),
        kunngjøringsdato: announced,
        søknadsfrist: shiftDay(announced, intBetween(rng, 21, 90)),
        url: `https://www.example.no/${k}/tomter/${year}-${i + 1}`,
        ...(named ? { grunnkretsnummer: grunnkrets.nummer, postnummer: postalCode } : {}),
        koordinatsystem: 'EPSG:25833',
        posisjon: { type: 'Point', coordinates: parcel.representasjonspunkt },
      };
    }
  }
}

export const LAND_ALLOCATION_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: noLandAllocation.id,
  country: 'NO',
  fileName: noLandAllocation.inputFileName,
  async write({ path, plan }) {
    let rows = 0;
    await writePieces(path, (function* () {
      for (const record of sampleLandAllocations(plan)) {
        rows++;
        yield `${JSON.stringify(record)}\n`;
      }
    })());
    return { rows };
  },
};
