import { describe, expect, it } from 'vitest';
import { PLAN_CELLS, ZONING_SAMPLE_FILE } from '../../../sample/no/zoning-plans.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { noZoning } from '../../../sources/no/zoning/adapter.js';
import { writeAndParse } from './written-register.js';

const plan = planSample(2400, '7');

describe('sample zoning plans', () => {
  it('load without a reject; adopted, proposed and repealed plans, each covering its block of sample parcels', async () => {
    const { rows, records, bytes } = await writeAndParse(ZONING_SAMPLE_FILE, noZoning, plan);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    expect(records).toHaveLength(rows);
    const plans = bytes.toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(new Set(plans.map((p) => p.planstatus))).toEqual(new Set([2, 3, 4]));
    const byMunicipality = new Map<string, { box: number[] }[]>();
    for (const p of plans) {
      const ring = p.område.coordinates[0];
      const list = byMunicipality.get(p.arealplanId.kommunenummer) ?? [];
      list.push({ box: [ring[0][0], ring[0][1], ring[2][0], ring[2][1]] });
      byMunicipality.set(p.arealplanId.kommunenummer, list);
    }
    let covered = 0, parcels = 0;
    for (const parcel of parcelsOfPlan(plan, { withAddresses: false })) {
      parcels++;
      const [east, north] = parcel.representasjonspunkt;
      const hits = (byMunicipality.get(parcel.kommunenummer) ?? []).filter(({ box: [w, s, e, n] }) => east > w && east < e && north > s && north < n);
      expect(hits.length).toBeLessThanOrEqual(1); // plans of one municipality tile without overlapping
      covered += hits.length;
    }
    expect(covered / parcels).toBeGreaterThan(0.85);
    expect(plans.length).toBeGreaterThan(parcels / (PLAN_CELLS * PLAN_CELLS));
  });
});
