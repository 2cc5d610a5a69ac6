import { describe, expect, it } from 'vitest';
import { CERTIFICATION_SAMPLE_FILE } from '../../../sample/no/certifications.js';
import { sampleBuildingsOf } from '../../../sample/no/buildings.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { CERTIFICATION_STAGING_COLUMNS, noCertification } from '../../../sources/no/certification/adapter.js';
import { staged, writeAndParse } from './written-register.js';

const plan = planSample(3000, '11');

describe('sample certifications', () => {
  it('load without a reject, on a few large non-residential buildings (and new blocks of flats), never before they were built', async () => {
    const { rows, records } = await writeAndParse(CERTIFICATION_SAMPLE_FILE, noCertification, plan);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    const certifications = staged(records, CERTIFICATION_STAGING_COLUMNS.map((c) => c.name));
    expect(certifications).toHaveLength(rows);
    const buildings = new Map([...parcelsOfPlan(plan, { withAddresses: false })].flatMap((p) => sampleBuildingsOf(p, plan.seedHash)).map((b) => [String(b.buildingNumber), b]));
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(buildings.size * 0.05);
    for (const c of certifications) {
      const building = buildings.get(c.building_number as string)!;
      expect(c.cadastre_id).toBe(building.cadastreId);
      expect(c.certified_area_m2).toBe(building.grossAreaM2);
      expect(Number((c.certified_date as string).slice(0, 4))).toBeGreaterThanOrEqual(building.builtYear!);
      if (c.scheme === 'SVANEMERKET') expect(building.typeCode).toMatch(/^14/);
      else expect(building.grossAreaM2).toBeGreaterThanOrEqual(1500);
    }
    expect(new Set(certifications.map((c) => c.scheme))).toContain('BREEAM-NOR');
  });
});
