import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { BUILDING_STATUSES, CERTIFICATION_SCHEMES, ENERGY_LABELS, HEATING_GRADES, TENANT_CONFIDENCES } from '../../api/schemas/code-lists.js';
import { BUILDING_STATUS_NAMES, buildingStatusOf } from '../../sources/no/building/codes.js';
import { heatingGrade } from '../../sources/no/energy/parse.js';
import { MATCH_RULES } from '../../derive/tenants/rules.js';

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
    expect(await exchangeEnum('no-matrikkel-detail', 'energikarakter')).toEqual([...ENERGY_LABELS].sort());
  });

  it('certification scheme: the certification exchange format allows exactly the listed schemes', async () => {
    expect(await exchangeEnum('no-certification', 'ordning')).toEqual([...CERTIFICATION_SCHEMES].sort());
  });

  it('tenant confidence: the derive step’s match rules give only listed confidences', () => {
    expect(MATCH_RULES.map((rule) => rule.confidence).filter((confidence) => !TENANT_CONFIDENCES.includes(confidence))).toEqual([]);
  });
});

/** The string values of every `enum` of a property named `property` anywhere in an exchange format's schema, sorted. */
async function exchangeEnum(format: string, property: string): Promise<string[]> {
  const schema = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'schema/exchange', `${format}.schema.json`), 'utf8'));
  const values = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const listed = key === property && value && typeof value === 'object' ? (value as { enum?: unknown[] }).enum : undefined;
      for (const item of listed ?? []) if (typeof item === 'string') values.add(item);
      visit(value);
    }
  };
  visit(schema);
  return [...values].sort();
}
