import { describe, expect, it } from 'vitest';
import { LAND_ALLOCATION_SAMPLE_FILE } from '../../../sample/no/land-allocations.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { noLandAllocation } from '../../../sources/no/land-allocation/adapter.js';
import { writeAndParse } from './written-register.js';

const plan = planSample(2400, '7');

describe('sample land allocations', () => {
  it('load without a reject, each on a sample parcel, named codes those of its addresses', async () => {
    const { rows, records, bytes } = await writeAndParse(LAND_ALLOCATION_SAMPLE_FILE, noLandAllocation, plan);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    expect(rows).toBeGreaterThanOrEqual(plan.blocks.length);
    const byPoint = new Map([...parcelsOfPlan(plan)].map((p) => [p.representasjonspunkt.join(','), p]));
    const allocations = bytes.toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(new Set(allocations.map((a) => `${a.kommunenummer}-${a.tildelingsid}`)).size).toBe(rows);
    for (const allocation of allocations) {
      const parcel = byPoint.get(allocation.posisjon.coordinates.join(','));
      expect(parcel?.kommunenummer).toBe(allocation.kommunenummer);
      if (allocation.grunnkretsnummer && parcel!.addresses.length) {
        expect(allocation.grunnkretsnummer).toBe(parcel!.addresses[0].districts.grunnkrets.nummer);
        expect(allocation.postnummer).toBe(parcel!.addresses[0].postnummer);
      }
    }
    expect(allocations.some((a) => !a.grunnkretsnummer)).toBe(true);
  });
});
