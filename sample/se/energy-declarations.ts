/**
 * Boverket energy declarations for the Swedish sample: about a third of the properties with
 * buildings have one, written as the API answers them (numbers as strings with units, the
 * designation without its municipality, the municipality's name in mixed case), one JSON line
 * per declaration with the kommunkod it was fetched for (docs/sources/se-energy.md).
 */
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { dateBetween, parcelRng, pick } from '../random.js';
import { loadSwedishMunicipalities } from './municipalities.js';
import { propertiesOfSwedishPlan, swedishPlanOf } from './properties.js';
import { writeLines } from './text-file.js';
import type { SeSampleProperty } from './types.js';

export const SE_ENERGY_FILE_NAME = 'boverket_energideklarationer_0000_sverige.jsonl';
const SHARE = 0.35;
const LABELS = ['A', 'B', 'C', 'C', 'D', 'D', 'D', 'E', 'E', 'F', 'G'];

export interface SeSampleDeclaration {
  id: number;
  cadastreId: string;
  label: string;
  performed: string;
  energyPerformance: number;
}

/** `123 kWh/m² och år`, now and then with a decimal comma, as the API prints it. */
const kwh = (value: number) => `${String(value).replace('.', ',')} kWh/m² och år`;
const postalText = (code: number) => {
  const text = String(code).padStart(5, '0');
  return `${text.slice(0, 3)} ${text.slice(3)}`;
};
const titleCase = (text: string) => text.toLocaleLowerCase('sv-SE').replace(/(^|[\s-])(\p{L})/gu, (_, a: string, b: string) => a + b.toLocaleUpperCase('sv-SE'));

/** The declaration of a property, or null (no buildings, or not declared): the truth tests compare with. */
export function sampleDeclarationOf(property: SeSampleProperty, seed: string): (SeSampleDeclaration & { line: object }) | null {
  if (!property.buildings.length) return null;
  const rng = parcelRng(`${seed}#se-energy`, property.index);
  if (rng() >= SHARE) return null;
  const municipality = loadSwedishMunicipalities().find((m) => m.kommunkod === property.kommunkod)!;
  const label = pick(rng, LABELS);
  const performance = Math.round((40 + rng() * 200) * 10) / 10;
  const primary = Math.round(performance * 1.15);
  const performed = dateBetween(rng, 2012, 2025);
  const address = property.addresses[0];
  const id = 300_000_000 + property.index;
  const line = {
    kommunkod: property.kommunkod,
    energideklaration: {
      id,
      energiklass: label,
      primarenergital: kwh(primary),
      energiprestanda: kwh(performance),
      radonmatning: pick(rng, ['Utförd', 'Inte utförd', null]),
      ventilationskontroll: pick(rng, ['Utförd', 'Inte utförd']),
      byggnadsar: rng() < 0.8 ? String(1900 + Math.floor(rng() * 123)) : null,
      utford: performed,
      fastigheter: [
        {
          kommun: municipality.name,
          // The API leaves the registerområde out: `KUNGSHOLMEN 1:2`.
          fastighetsbeteckning: property.designation.slice(property.kommunnamn.length + 1),
          adresser: address
            ? [{ adress: `${address.adressomrade} ${address.expectedHouseNumber}`, postnummer: postalText(address.postnummer), postort: titleCase(address.postort) }]
            : [],
        },
      ],
    },
  };
  return { id, cadastreId: property.cadastreId, label, performed, energyPerformance: performance, line };
}

export async function writeSeEnergySample(context: SampleWriteContext): Promise<{ rows: number }> {
  const plan = swedishPlanOf(context);
  function* lines() {
    for (const property of propertiesOfSwedishPlan(plan)) {
      const declaration = sampleDeclarationOf(property, context.seed);
      if (declaration) yield `${JSON.stringify(declaration.line)}\n`;
    }
  }
  return { rows: await writeLines(context.path, lines()) };
}

export const SE_ENERGY_SAMPLE_FILE: SampleRegisterFile = { sourceId: 'se-energy', country: 'SE', fileName: SE_ENERGY_FILE_NAME, write: writeSeEnergySample };
