/**
 * Boverket energy declarations for the Swedish sample: about a third of the properties with
 * buildings have one, written as the API answers them (numbers as strings with units, the
 * designation without its municipality, the municipality's name in mixed case), one JSON line
 * per declaration with the kommunkod it was fetched for (docs/sources/se-energy.md). Now and
 * then a declaration in a kvarter also covers the property before it in the same kvarter (a
 * building standing on two fastigheter), so the demo lists one declaration under both.
 */
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { dateBetween, parcelRng, pick } from '../random.js';
import { loadSwedishMunicipalities } from './municipalities.js';
import { propertiesOfSwedishPlan, swedishPlanOf } from './properties.js';
import { writeLines } from './text-file.js';
import type { SeSampleProperty } from './types.js';

export const SE_ENERGY_FILE_NAME = 'boverket_energideklarationer_0000_sverige.jsonl';
const SHARE = 0.35;
/** Of the declarations in a kvarter, the share that also cover the kvarter's previous property. */
const TWO_PROPERTY_SHARE = 0.15;
const LABELS = ['A', 'B', 'C', 'C', 'D', 'D', 'D', 'E', 'E', 'F', 'G'];

export interface SeSampleDeclaration {
  id: number;
  cadastreId: string;
  /** Every property it covers, `cadastreId` first. */
  cadastreIds: string[];
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

/** The property declared with this one, if any: the one before it in the same kvarter, drawn from a stream of its own. */
function coveredWith(property: SeSampleProperty, previous: SeSampleProperty | undefined, seed: string): SeSampleProperty | null {
  if (!previous || property.kind !== 'kvarter' || previous.kind !== 'kvarter') return null;
  if (previous.kommunkod !== property.kommunkod || previous.trakt !== property.trakt) return null;
  return parcelRng(`${seed}#se-energy-two`, property.index)() < TWO_PROPERTY_SHARE ? previous : null;
}

/**
 * The declaration of a property, or null (no buildings, or not declared): the truth tests
 * compare with. `previous` is the property before it in the sample, which it may also cover.
 */
export function sampleDeclarationOf(property: SeSampleProperty, seed: string, previous?: SeSampleProperty): (SeSampleDeclaration & { line: object }) | null {
  if (!property.buildings.length) return null;
  const rng = parcelRng(`${seed}#se-energy`, property.index);
  if (rng() >= SHARE) return null;
  const municipality = loadSwedishMunicipalities().find((m) => m.kommunkod === property.kommunkod)!;
  const label = pick(rng, LABELS);
  const performance = Math.round((40 + rng() * 200) * 10) / 10;
  const primary = Math.round(performance * 1.15);
  const performed = dateBetween(rng, 2012, 2025);
  const id = 300_000_000 + property.index;
  const covered = [property, coveredWith(property, previous, seed)].filter((p) => p !== null);
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
      fastigheter: covered.map((p) => ({
        kommun: municipality.name,
        // The API leaves the registerområde out: `KUNGSHOLMEN 1:2`.
        fastighetsbeteckning: p.designation.slice(p.kommunnamn.length + 1),
        adresser: p.addresses[0]
          ? [{ adress: `${p.addresses[0].adressomrade} ${p.addresses[0].expectedHouseNumber}`, postnummer: postalText(p.addresses[0].postnummer), postort: titleCase(p.addresses[0].postort) }]
          : [],
      })),
    },
  };
  return { id, cadastreId: property.cadastreId, cadastreIds: covered.map((p) => p.cadastreId), label, performed, energyPerformance: performance, line };
}

export async function writeSeEnergySample(context: SampleWriteContext): Promise<{ rows: number }> {
  const plan = swedishPlanOf(context);
  function* lines() {
    let previous: SeSampleProperty | undefined;
    for (const property of propertiesOfSwedishPlan(plan)) {
      const declaration = sampleDeclarationOf(property, context.seed, previous);
      if (declaration) yield `${JSON.stringify(declaration.line)}\n`;
      previous = property;
    }
  }
  return { rows: await writeLines(context.path, lines()) };
}

export const SE_ENERGY_SAMPLE_FILE: SampleRegisterFile = { sourceId: 'se-energy', country: 'SE', fileName: SE_ENERGY_FILE_NAME, write: writeSeEnergySample };
