import { describe, expect, it } from 'vitest';
import { PERMITS_SAMPLE_FILE } from '../../../sample/no/permits.js';
import { sampleBuildingsOf } from '../../../sample/no/buildings.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { PERMIT_STAGING_COLUMNS, noPermits } from '../../../sources/no/permits/adapter.js';
import { staged, writeAndParse } from './written-register.js';

const plan = planSample(800, '11');

describe('sample permits', () => {
  it('load without a reject; a new building has the case that granted it, on the day its status history says', async () => {
    const { rows, records } = await writeAndParse(PERMITS_SAMPLE_FILE, noPermits, plan);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    const cases = staged(records, PERMIT_STAGING_COLUMNS.map((c) => c.name));
    expect(cases).toHaveLength(rows);
    expect(new Set(cases.map((c) => c.case_id)).size).toBe(rows);
    const buildings = new Map([...parcelsOfPlan(plan, { withAddresses: false })].flatMap((p) => sampleBuildingsOf(p, plan.seedHash)).map((b) => [String(b.buildingNumber), b]));
    const newBuildingCases = cases.filter((c) => String(c.kind).startsWith('nyttbygg'));
    expect(newBuildingCases.length).toBeGreaterThan(100);
    for (const c of newBuildingCases) {
      const building = buildings.get(c.building_number as string)!;
      expect(c.cadastre_id).toBe(building.cadastreId);
      const granted = building.statusHistory.find((s) => s.code === 'RA' || s.code === 'IG')!;
      expect(c.decided_date).toBe(granted.changedDate);
      expect(c.completed_date).toBe(building.statusHistory.find((s) => s.code === 'FA')?.changedDate ?? null);
    }
    // Later cases in every state.
    expect(new Set(cases.map((c) => c.status))).toEqual(new Set(['COMPLETED', 'APPROVED', 'IN_PROGRESS', 'REJECTED', 'WITHDRAWN']));
  });
});
