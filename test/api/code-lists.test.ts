import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { BUILDING_STATUSES, ENERGY_LABELS, HEATING_GRADES } from '../../api/schemas/code-lists.js';
import { BUILDING_STATUS_NAMES, buildingStatusOf } from '../../sources/no/building-codes.js';
import { heatingGrade } from '../../sources/no/energy-csv.js';

/**
 * The enums /openapi.yaml lists for code fields are what a generated client switches on: each
 * value a source adapter can write must be in its list, and no list may name a value no
 * adapter writes.
 */
describe('the code lists of /openapi.yaml match what the adapters write', () => {
  it('building status: every bygningsstatus code maps into the list, and every listed status is some code’s', () => {
    const written = [...BUILDING_STATUS_NAMES.keys()].map((code) => buildingStatusOf(code));
    expect(written.filter((status) => !BUILDING_STATUSES.includes(status as never))).toEqual([]);
    expect([...new Set(written)].sort()).toEqual([...BUILDING_STATUSES].sort());
  });

  it('heating grade: each colour of Enova’s file, in English or Norwegian, is a listed grade, and each grade is written', () => {
    const colours = ['Red', 'Orange', 'Yellow', 'LightGreen', 'Green', 'DarkGreen', 'Rød', 'Oransje', 'Gul', 'Lysegrønn', 'Grønn', 'Mørkegrønn'];
    const written = colours.map((colour) => heatingGrade(colour));
    expect(written.filter((grade) => !HEATING_GRADES.includes(grade as never))).toEqual([]);
    expect([...new Set(written)].sort()).toEqual([...HEATING_GRADES].sort());
  });

  it('energy label: the matrikkel exchange format allows exactly the listed labels', async () => {
    const schema = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'schema/exchange/no-matrikkel-detail.schema.json'), 'utf8'));
    const labels = new Set<string>();
    // Every `energikarakter` property anywhere in the exchange schema.
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'energikarakter' && value && typeof value === 'object' && Array.isArray((value as { enum?: unknown[] }).enum)) {
          for (const label of (value as { enum: unknown[] }).enum) if (typeof label === 'string') labels.add(label);
        }
        visit(value);
      }
    };
    visit(schema);
    expect([...labels].sort()).toEqual([...ENERGY_LABELS]);
  });
});
