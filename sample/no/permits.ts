/**
 * Sample building permit cases in nordprop's exchange format (JSON Lines, see
 * schema/exchange/no-permits.schema.json), coherent with the sample's buildings: every building
 * whose status history went through a permit (rammetillatelse RA / igangsettingstillatelse IG)
 * has the case that granted it, decided on the day its history says, completed (ferdigattest)
 * when its history has FA; and some properties have later, smaller cases in every state.
 */
import seedrandom from 'seedrandom';
import { parseCadastreId } from '../../sources/no/cadastre-id.js';
import { PERMITS_FILE_NAME } from '../../sources/no/permits/adapter.js';
import { parcelsOfPlan } from '../parcels.js';
import type { SamplePlan } from '../plan.js';
import { intBetween, pick, weightedIndex, type Rng } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import type { SampleParcel } from '../types.js';
import { sampleBuildingsOf, type SampleBuilding } from './buildings.js';
import { dayOfYear, shiftDay, SAMPLE_TODAY, writePieces } from './sample-text.js';

/** Case sequence numbers: unique per parcel slot, so a municipality never repeats one in a year. */
const SLOTS_PER_PARCEL = 16;
/** Share of properties with a later, smaller case (extension, facade, change of use, demolition). */
const LATER_CASE_SHARE = 0.08;
/** Municipal case archives (Noark) that a permit export can draw on reach back to about 1980. */
const DIGITAL_ARCHIVES_FROM = '1980-01-01';

const LATER_KINDS = [
  { tiltakstype: 'tilbyggunder50m2', beskrivelse: 'Tilbygg til bolig' },
  { tiltakstype: 'tilbyggover50m2', beskrivelse: 'Tilbygg i to etasjer' },
  { tiltakstype: 'fasadeendring', beskrivelse: 'Nye vinduer og fasadekledning' },
  { tiltakstype: 'bruksendring', beskrivelse: 'Bruksendring fra tilleggsdel til hoveddel' },
  { tiltakstype: 'rivinghelebygg', beskrivelse: 'Riving av uthus' },
];
const LATER_STATUSES = ['Innvilget', 'Under behandling', 'Avslått', 'Trukket', 'Ferdigattest'] as const;

function newBuildingKind(building: SampleBuilding): { tiltakstype: string; beskrivelse: string } {
  const code = Number(building.typeCode);
  if (code >= 181 && code <= 183) return { tiltakstype: 'nyttbyggunder70m2', beskrivelse: 'Oppføring av garasje/uthus' };
  if (code < 200) return { tiltakstype: 'nyttbyggboligformal', beskrivelse: 'Oppføring av bolig' };
  return { tiltakstype: 'nyttbyggnaringsformal', beskrivelse: 'Oppføring av næringsbygg' };
}

/** The case that gave a building its permit, from its status history. */
function permitCaseOf(building: SampleBuilding, rng: Rng): object | null {
  const history = building.statusHistory;
  const granted = history.find((s) => s.code === 'RA' || s.code === 'IG');
  if (!granted || granted.changedDate < DIGITAL_ARCHIVES_FROM) return null;
  const completed = history.find((s) => s.code === 'FA');
  const mottattdato = shiftDay(granted.changedDate, -intBetween(rng, 21, 120));
  return {
    saksnummer: { saksaar: Number(mottattdato.slice(0, 4)) },
    eiendomByggested: parseCadastreId(building.cadastreId),
    bygningsnummer: String(building.buildingNumber),
    ...newBuildingKind(building),
    soknadstype: history[0].code === 'RA' ? 'RS' : 'ET',
    status: completed ? 'Ferdigattest' : 'Innvilget',
    mottattdato,
    vedtaksdato: granted.changedDate,
    ...(completed ? { ferdigattestdato: completed.changedDate } : {}),
  };
}

function laterCaseOf(parcel: SampleParcel, building: SampleBuilding | undefined, rng: Rng): object {
  const kind = pick(rng, LATER_KINDS);
  let status: (typeof LATER_STATUSES)[number] = LATER_STATUSES[weightedIndex(rng, [50, 15, 10, 5, 20])];
  const received = dayOfYear(intBetween(rng, 2016, 2025), intBetween(rng, 0, 364));
  const mottattdato = received > SAMPLE_TODAY ? SAMPLE_TODAY : received;
  let vedtaksdato: string | null = null;
  let ferdigattestdato: string | null = null;
  if (status === 'Innvilget' || status === 'Avslått' || status === 'Ferdigattest') {
    vedtaksdato = shiftDay(mottattdato, intBetween(rng, 14, 90));
    // Not decided by the sample's "today": still being handled.
    if (vedtaksdato > SAMPLE_TODAY) [status, vedtaksdato] = ['Under behandling', null];
  }
  if (status === 'Ferdigattest' && vedtaksdato) {
    ferdigattestdato = shiftDay(vedtaksdato, intBetween(rng, 30, 200));
    if (ferdigattestdato > SAMPLE_TODAY) [status, ferdigattestdato] = ['Innvilget', null];
  }
  return {
    saksnummer: { saksaar: Number(mottattdato.slice(0, 4)) },
    eiendomByggested: parseCadastreId(building?.cadastreId ?? parcel.units[0].cadastreId),
    ...(building ? { bygningsnummer: String(building.buildingNumber) } : {}),
    ...kind,
    soknadstype: 'ET',
    status,
    mottattdato,
    ...(vedtaksdato ? { vedtaksdato } : {}),
    ...(ferdigattestdato ? { ferdigattestdato } : {}),
  };
}

export function* permitLines(plan: SamplePlan, stats: { rows: number }): Generator<string> {
  // Buildings need no addresses here, and building parcels without them is a quarter faster.
  for (const parcel of parcelsOfPlan(plan, { withAddresses: false })) {
    const rng = seedrandom.alea(`${plan.seed}#permits#${parcel.index}`);
    const buildings = sampleBuildingsOf(parcel, plan.seedHash);
    const cases = buildings.map((building) => permitCaseOf(building, rng)).filter((c): c is object => c !== null);
    if (rng() < LATER_CASE_SHARE) cases.push(laterCaseOf(parcel, buildings.length ? pick(rng, buildings) : undefined, rng));
    let piece = '';
    cases.slice(0, SLOTS_PER_PARCEL).forEach((permitCase, k) => {
      const record = permitCase as { saksnummer: { saksaar: number; sakssekvensnummer?: number } };
      record.saksnummer.sakssekvensnummer = parcel.index * SLOTS_PER_PARCEL + k + 1;
      piece += `${JSON.stringify(record)}\n`;
      stats.rows += 1;
    });
    if (piece) yield piece;
  }
}

export const PERMITS_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: 'no-permits',
  country: 'NO',
  fileName: PERMITS_FILE_NAME,
  async write({ path, plan }) {
    const stats = { rows: 0 };
    await writePieces(path, permitLines(plan, stats));
    return stats;
  },
};
