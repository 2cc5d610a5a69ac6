import { describe, expect, it } from 'vitest';
import { ENERGY_SAMPLE_FILE } from '../../../sample/no/energy-certificates.js';
import { sampleBuildingsOf } from '../../../sample/no/buildings.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { ENERGY_STAGING_COLUMNS } from '../../../sources/no/energy/parse.js';
import { noEnergy } from '../../../sources/no/energy/adapter.js';
import { staged, writeAndParse } from './written-register.js';

const plan = planSample(600, '11');

describe('sample energy certificates', () => {
  it("load without a reject, each on a sample building's property and unit, issued after it was taken into use", async () => {
    const { rows, records, bytes } = await writeAndParse(ENERGY_SAMPLE_FILE, noEnergy, plan);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    const certificates = staged(records, ENERGY_STAGING_COLUMNS.map((c) => c.name));
    expect(certificates).toHaveLength(rows);
    expect(new Set(certificates.map((c) => c.certificate_id)).size).toBe(rows);

    const buildings = new Map([...parcelsOfPlan(plan)].flatMap((parcel) => sampleBuildingsOf(parcel, plan.seedHash)).map((b) => [String(b.buildingNumber), b]));
    const withUnits = [...buildings.values()].filter((b) => b.builtYear !== null && b.units.length > 0 && !/^1[6-8]/.test(b.typeCode));
    // A realistic share: a certificate for some, not all, buildings that need one.
    expect(rows / withUnits.length).toBeGreaterThan(0.2);
    expect(rows / withUnits.length).toBeLessThan(2);
    for (const c of certificates) {
      const building = buildings.get(c.building_number as string)!;
      expect(building).toBeDefined();
      const cadastreIds = [building.cadastreId, ...building.units.map((u) => u.cadastreId)];
      expect(cadastreIds).toContain(c.cadastre_id);
      if (c.unit_number) expect(building.units.map((u) => u.unitNumber)).toContain(c.unit_number);
      expect(Number((c.issued_date as string).slice(0, 4))).toBeGreaterThanOrEqual(building.builtYear!);
    }
    // The file's quirks are there: municipality numbers and postal codes without leading zeros, decimal commas in quotes.
    const text = bytes.toString('utf8');
    expect(text).toMatch(/\r\n301,/);
    expect(text).toMatch(/,"0,\d\d",/);
  });

  it('is the same file for the same seed', async () => {
    const first = await writeAndParse(ENERGY_SAMPLE_FILE, noEnergy, planSample(150, '3'));
    const second = await writeAndParse(ENERGY_SAMPLE_FILE, noEnergy, planSample(150, '3'));
    expect(second.bytes.equals(first.bytes)).toBe(true);
  });
});
