/**
 * Sample detaljplaner (the se-zoning exchange file): each municipality's property grid is tiled
 * into plan areas of PLAN_CELLS x PLAN_CELLS cells drawn on the grid lines, so every plan covers
 * whole sample properties. Most are plans in force with a byggnadsarea provision (in percent,
 * now and then in m² per property) and often a bruttoarea one; some are being prepared or only
 * antagen, some repealed or replaced, and a few tiles have no plan. The sample's first four
 * tiles (a small municipality may have only one) are always one in force, one under review, one
 * repealed and one in force with its byggnadsarea in m², so even the smallest sample has every
 * API state and both kinds of byggnadsarea provision.
 */
import seedrandom from 'seedrandom';
import { seZoning } from '../../sources/se/zoning/adapter.js';
import { intBetween, pick, type Rng } from '../random.js';
import type { SampleRegisterFile } from '../register-files.js';
import { dayOfYear, shiftDay } from '../no/sample-text.js';
import { swedishPlanOf, type SeMunicipalityBlock, type SeSamplePlan } from './properties.js';
import { writeLines } from './text-file.js';

export const SE_PLAN_CELLS = 8;

type PlanStatus = 'lagakraftvunnen' | 'antagen' | 'samråd' | 'granskning' | 'upphävd' | 'ersatt';

const USES = ['Bostäder (B)', 'Bostäder (B)', 'Bostäder (B)', 'Centrum (C)', 'Kontor (K)', 'Bostäder, centrum (BC)', 'Industri (J)'];
const PLACE_WORDS = ['kvarteret', 'området', 'del av', 'tomterna vid'];

function statusOf(rng: Rng, sampleTile: number): PlanStatus | 'none' {
  if (sampleTile < 4) return (['lagakraftvunnen', 'granskning', 'upphävd', 'lagakraftvunnen'] as const)[sampleTile];
  const u = rng();
  return u < 0.74 ? 'lagakraftvunnen' : u < 0.8 ? 'antagen' : u < 0.86 ? 'samråd' : u < 0.9 ? 'upphävd' : u < 0.94 ? 'ersatt' : 'none';
}

/** A closed counter-clockwise ring of the grid rectangle [r0, r1) x [c0, c1), metres in EPSG:3006. */
function gridRing(block: SeMunicipalityBlock, r0: number, r1: number, c0: number, c1: number): [number, number][] {
  const east = (col: number) => (block.originEastCm + col * block.cellCm) / 100;
  const north = (row: number) => (block.originNorthCm + row * block.cellCm) / 100;
  const [w, e, s, n] = [east(c0), east(Math.min(c1, block.cols)), north(r0), north(Math.min(r1, block.rows))];
  return [[w, s], [e, s], [e, n], [w, n], [w, s]];
}

function utilizationRules(rng: Rng, inM2: boolean): { beteckning: string; typ: string; varde: number }[] {
  const rules = rng() < 0.15 || inM2
    ? [{ typ: 'byggnadsarea_m2', varde: 10 * intBetween(rng, 12, 30) }]
    : [{ typ: 'byggnadsarea_procent', varde: 5 * intBetween(rng, 4, 9) }];
  if (rng() < 0.4) rules.push({ typ: 'bruttoarea_m2', varde: 50 * intBetween(rng, 4, 30) });
  return rules.map((rule, i) => ({ beteckning: `e${i + 1}`, ...rule }));
}

export function* sampleDetaljplaner(plan: SeSamplePlan): Generator<Record<string, unknown>> {
  let sampleTile = 0;
  for (const block of plan.blocks) {
    const { kommunkod, name: municipalityName } = block.municipality;
    const rng = seedrandom.alea(`${plan.seed}#se-zoning#${kommunkod}`);
    let tile = 0;
    for (let r0 = 0; r0 < block.rows; r0 += SE_PLAN_CELLS) {
      for (let c0 = 0; c0 < block.cols; c0 += SE_PLAN_CELLS, tile++, sampleTile++) {
        const status = statusOf(rng, sampleTile);
        if (status === 'none') continue;
        const underway = status === 'samråd' || status === 'granskning' || status === 'antagen';
        const year = underway ? intBetween(rng, 2023, 2025) : intBetween(rng, 1960, 2024);
        const planbeteckning = `${kommunkod}-P${year}/${tile + 1}`;
        const adopted = status === 'samråd' || status === 'granskning' ? undefined : dayOfYear(year, intBetween(rng, 0, 300));
        // Laga kraft some weeks after the antagande, once no appeal is pending.
        const lagakraft = status === 'antagen' || !adopted ? undefined : shiftDay(adopted, intBetween(rng, 21, 60));
        const namn = `Detaljplan för ${pick(rng, PLACE_WORDS)} ${tile + 1}, ${municipalityName}`;
        const documentsBase = `https://planer.example.se/${kommunkod}/${encodeURIComponent(planbeteckning)}`;
        yield {
          planidentitet: { kommunkod, planbeteckning },
          namn,
          plantyp: year < 1987 ? pick(rng, ['stadsplan', 'byggnadsplan']) : 'detaljplan',
          status,
          ...(adopted ? { antagandedatum: adopted } : {}),
          ...(lagakraft ? { lagakraftdatum: lagakraft } : {}),
          anvandning: pick(rng, USES),
          utnyttjandegrad: utilizationRules(rng, sampleTile === 3),
          referenssystem: 'EPSG:3006',
          planomrade: { type: 'Polygon', coordinates: [gridRing(block, r0, r0 + SE_PLAN_CELLS, c0, c0 + SE_PLAN_CELLS)] },
          dokument: [
            { dokumentid: `${planbeteckning}-plankarta`, typ: 'plankarta', titel: `Plankarta ${namn}`, ...(adopted ? { publiceringsdatum: adopted } : {}), url: `${documentsBase}/plankarta.pdf`, mediatyp: 'application/pdf' },
            { dokumentid: `${planbeteckning}-planbeskrivning`, typ: 'planbeskrivning', titel: `Planbeskrivning ${namn}`, ...(adopted ? { publiceringsdatum: adopted } : {}), url: `${documentsBase}/planbeskrivning.pdf`, mediatyp: 'application/pdf' },
          ],
        };
      }
    }
  }
}

export const SE_ZONING_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: seZoning.id,
  country: 'SE',
  fileName: seZoning.inputFileName,
  async write(context) {
    const plan = swedishPlanOf(context);
    const rows = await writeLines(context.path, (function* () {
      for (const record of sampleDetaljplaner(plan)) yield `${JSON.stringify(record)}\n`;
    })());
    return { rows };
  },
};
