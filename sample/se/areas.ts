/**
 * The Swedish area input for the sample: one tar (docs/sources/se-area.md) of
 * - the real municipality boundaries (`sample/data/se-kommuner-3006.gpkg`, all 290),
 * - the postal codes the sample's addresses use, with postort and municipality,
 * - land allocations: about one property in 250 of the featured municipalities is offered as a
 *   markanvisning, its first area as the polygon (EPSG:3006).
 */
import path from 'node:path';
import { sampleDataFile } from '../data-files.js';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { parcelRng, pick } from '../random.js';
import { writeTar } from '../tar-writer.js';
import { isFeaturedSe } from './municipalities.js';
import { isJointUnit, propertiesOfSwedishPlan, swedishPlanOf } from './properties.js';
import { withScratchDir, writeLines } from './text-file.js';
import type { SeSampleProperty } from './types.js';

export const SE_AREA_FILE_NAME = 'se_omraden_0000_sverige.tar';
const ALLOCATION_EVERY = 250;
const STATUSES = ['Planerad', 'Utlyst', 'Utlyst', 'Under utvärdering', 'Anvisad', 'Avslutad'];
const PURPOSES = ['bostäder', 'verksamheter', 'förskola', 'bostäder och lokaler'];

/** The land allocation offering a property, or null; deterministic from the seed. */
export function sampleLandAllocationOf(property: SeSampleProperty, seed: string): object | null {
  if (!isFeaturedSe(property.kommunkod) || property.index % ALLOCATION_EVERY !== 7 || isJointUnit(property.kind)) return null;
  const rng = parcelRng(`${seed}#se-land-allocation`, property.index);
  const area = property.areas[0];
  const announced = `2026-0${1 + Math.floor(rng() * 9)}-1${Math.floor(rng() * 9)}`;
  return {
    markanvisningId: `MA-${property.kommunkod}-${property.index}`,
    kommunkod: property.kommunkod,
    titel: `Markanvisning ${property.trakt.charAt(0)}${property.trakt.slice(1).toLocaleLowerCase('sv-SE')}`,
    syfte: pick(rng, PURPOSES),
    status: pick(rng, STATUSES),
    arealKvm: Math.round(area.area),
    pris: { belopp: Math.round((area.area * (1500 + rng() * 3000)) / 1000) * 1000, valuta: 'SEK' },
    publicerad: announced,
    sistaAnmalningsdag: `2026-1${Math.floor(rng() * 3)}-2${Math.floor(rng() * 8)}`,
    url: `https://www.example.se/markanvisning/${property.kommunkod}/${property.index}`,
    koordinatsystem: 'EPSG:3006',
    geometri: { type: 'Polygon', coordinates: [area.exterior.map(([east, north]) => [east, north])] },
  };
}

export async function writeSeAreaSample(context: SampleWriteContext): Promise<{ rows: number }> {
  const plan = swedishPlanOf(context);
  // At most one entry per postal code (about 15,000 nationwide): small enough to gather.
  const postal = new Map<string, { postort: string; kommunkod: string }>();
  return withScratchDir(async (dir) => {
    const allocations = path.join(dir, 'markanvisningar.jsonl');
    let rows = await writeLines(allocations, (function* () {
      for (const property of propertiesOfSwedishPlan(plan)) {
        for (const address of property.addresses) {
          const code = String(address.postnummer).padStart(5, '0');
          if (!postal.has(code)) postal.set(code, { postort: address.postort, kommunkod: property.kommunkod });
        }
        const allocation = sampleLandAllocationOf(property, context.seed);
        // Allocations are rare: an empty line (written as nothing) lets the generator pace this pass.
        yield allocation ? `${JSON.stringify(allocation)}\n` : '';
      }
    })());
    const postalFile = path.join(dir, 'postnummer.csv');
    rows += await writeLines(postalFile, (function* () {
      yield 'postnummer;postort;kommunkod\n';
      for (const [code, { postort, kommunkod }] of [...postal].sort(([a], [b]) => a.localeCompare(b))) yield `${code};${postort};${kommunkod}\n`;
    })()) - 1;
    await writeTar(context.path, [
      { name: 'se-kommuner-3006.gpkg', file: sampleDataFile('se-kommuner-3006.gpkg') },
      { name: 'postnummer.csv', file: postalFile },
      { name: 'markanvisningar.jsonl', file: allocations },
    ]);
    return { rows: rows + 290 };
  });
}

export const SE_AREA_SAMPLE_FILE: SampleRegisterFile = { sourceId: 'se-area', country: 'SE', fileName: SE_AREA_FILE_NAME, write: writeSeAreaSample };

