/**
 * Sample zoning plans (the no-zoning exchange file): each municipality's parcel grid is tiled
 * into plan areas of PLAN_CELLS x PLAN_CELLS cells drawn on the undisturbed grid lines, so every
 * plan covers whole blocks of real sample parcels. Most are adopted detail plans with
 * utilization rules; some are proposals, some repealed, and a few tiles have no plan at all.
 * The first municipality's first tiles are always one of each, so even the smallest sample has
 * all three states.
 */
import seedrandom from 'seedrandom';
import { noZoning } from '../../sources/no/zoning/adapter.js';
import type { SamplePlan } from '../plan.js';
import { intBetween, pick, type Rng } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import { gridRectangle } from './areas.js';
import { dayOfYear, writePieces } from './sample-text.js';

export const PLAN_CELLS = 8;

type PlanState = 'adopted' | 'proposed' | 'repealed' | 'none';

const PURPOSES = ['Boligbebyggelse', 'Boligbebyggelse', 'Boligbebyggelse', 'Kombinert bebyggelse og anleggsformål', 'Forretning/kontor', 'Næringsbebyggelse', 'Sentrumsformål'];
const PLACE_WORDS = ['Kvartal', 'Felt', 'Område', 'Tomt', 'Boligfelt'];

function stateOf(rng: Rng, blockIndex: number, tile: number): PlanState {
  if (blockIndex === 0 && tile < 3) return (['adopted', 'proposed', 'repealed'] as const)[tile];
  const u = rng();
  return u < 0.78 ? 'adopted' : u < 0.88 ? 'proposed' : u < 0.94 ? 'repealed' : 'none';
}

export function* sampleZoningPlans(plan: SamplePlan): Generator<Record<string, unknown>> {
  for (const [blockIndex, block] of plan.blocks.entries()) {
    const k = block.municipality.kommunenummer;
    const rng = seedrandom.alea(`${plan.seed}#zoning#${k}`);
    let tile = 0;
    for (let r0 = 0; r0 < block.rows; r0 += PLAN_CELLS) {
      for (let c0 = 0; c0 < block.cols; c0 += PLAN_CELLS, tile++) {
        const state = stateOf(rng, blockIndex, tile);
        if (state === 'none') continue;
        const year = state === 'proposed' ? intBetween(rng, 2023, 2025) : intBetween(rng, 1975, 2024);
        const planId = `${year}${String(tile).padStart(4, '0')}`;
        const purpose = pick(rng, PURPOSES);
        const name = `${state === 'proposed' ? 'Forslag til detaljregulering' : 'Detaljregulering'} for ${pick(rng, PLACE_WORDS)} ${tile + 1}, ${block.municipality.norwegianName}`;
        const adopted = state === 'proposed' ? undefined : dayOfYear(year, intBetween(rng, 0, 364));
        const documentsBase = `https://planinnsyn.example.no/${k}/${planId}`;
        yield {
          arealplanId: { kommunenummer: k, planidentifikasjon: planId },
          plannavn: name,
          plantype: 35,
          planstatus: state === 'adopted' ? 3 : state === 'proposed' ? 2 : 4,
          planformål: purpose,
          ...(adopted ? { ikrafttredelsesdato: adopted } : {}),
          utnytting: [
            { utnyttingstype: '%-BYA', utnyttingstall: 5 * intBetween(rng, 4, 10) },
            ...(rng() < 0.6 ? [{ utnyttingstype: 'BRA', utnyttingstall: 100 * intBetween(rng, 8, 60) }] : []),
          ],
          koordinatsystem: 'EPSG:25833',
          område: { type: 'Polygon', coordinates: [gridRectangle(block, r0, r0 + PLAN_CELLS, c0, c0 + PLAN_CELLS)] },
          dokumenter: [
            { dokumentidentifikasjon: `${planId}-plankart`, dokumenttype: 'Plankart', dokumentnavn: `Plankart ${name}`, ...(adopted ? { publiseringsdato: adopted } : {}), url: `${documentsBase}/plankart.pdf`, mediatype: 'application/pdf' },
            { dokumentidentifikasjon: `${planId}-bestemmelser`, dokumenttype: 'Planbestemmelser', dokumentnavn: `Bestemmelser ${name}`, ...(adopted ? { publiseringsdato: adopted } : {}), url: `${documentsBase}/bestemmelser.pdf`, mediatype: 'application/pdf' },
          ],
        };
      }
    }
  }
}

export const ZONING_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: noZoning.id,
  country: 'NO',
  fileName: noZoning.inputFileName,
  async write({ path, plan }) {
    let rows = 0;
    await writePieces(path, (function* () {
      for (const record of sampleZoningPlans(plan)) {
        rows++;
        yield `${JSON.stringify(record)}\n`;
      }
    })());
    return { rows };
  },
};
