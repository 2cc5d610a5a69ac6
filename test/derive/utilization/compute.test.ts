import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../activities/types.js';
import { generateSample } from '../../../sample/generate.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runDerive, runRefresh, sourceOf } from '../../support/runs.js';
import { clientWithToken, get, startApiServer, type ApiServer, type TestClient } from '../../api/support/api-server.js';

const PARCELS = 600;
const SEED = 'utilization-test';
let pipeline: TestPipeline;
let api: ApiServer;
let reader: TestClient;

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  const nightly = await runRefresh(pipeline.client, pipeline.taskQueue, { country: 'NO' });
  expect(sourceOf(nightly.derived!, 'derive-no-utilization').outcome).toBe('published');
  api = await startApiServer(pipeline.pool);
  reader = await clientWithToken(pipeline.pool, api.baseUrl, { scopes: ['properties.read'] });
}, 600_000);
afterAll(async () => {
  await api?.close();
  await pipeline?.stop();
});

const deriveUtilization = (): Promise<RunSummary> => runDerive(pipeline.client, pipeline.taskQueue, { datasets: ['utilization'], countries: ['NO'] });

/** A one-parcel property lying wholly inside one adopted plan, the plan's rules chosen by `rule`. */
async function propertyInsidePlan(rule: 'bra' | 'bya only') {
  const result = await pipeline.pool.query(
    `SELECT pp.cadastre_id, p.area_m2, z.plan_id, z.name, z.bya_pct, z.bra_m2,
            (SELECT coalesce(sum(d.usable_area_m2), 0) FROM building_detail d WHERE d.country = 'NO' AND d.cadastre_id = pp.cadastre_id) AS built
     FROM parcel_property pp JOIN parcel p USING (country, parcel_id)
     JOIN zoning_plan z ON z.country = 'NO' AND z.status = 'ADOPTED' AND ST_Within(p.geom, z.geom)
     WHERE pp.country = 'NO' AND ${rule === 'bra' ? 'z.bra_m2 IS NOT NULL' : 'z.bra_m2 IS NULL AND z.bya_pct IS NOT NULL'}
       AND (SELECT count(*) FROM parcel_property x WHERE x.country = 'NO' AND x.cadastre_id = pp.cadastre_id) = 1
       AND NOT EXISTS (SELECT 1 FROM zoning_plan o WHERE o.country = 'NO' AND o.status = 'ADOPTED' AND o.plan_id <> z.plan_id AND ST_Intersects(o.geom, p.geom)
                       AND ST_Area(ST_Intersection(o.geom, p.geom)::geography) > 1)
       AND EXISTS (SELECT 1 FROM building_detail d WHERE d.country = 'NO' AND d.cadastre_id = pp.cadastre_id AND d.usable_area_m2 > 0)
     ORDER BY pp.cadastre_id LIMIT 1`,
  );
  expect(result.rowCount, `a sample property inside a plan with ${rule}`).toBe(1);
  return result.rows[0];
}

const utilizationOf = (cadastreId: string) => get(api.baseUrl, `/properties/NO/${cadastreId}/utilization`, reader.token);

describe('utilization, served by GET /properties/{country}/{cadastreId}/utilization', () => {
  it('under a plan with a BRA rule: the plan\'s BRA, its %-BYA, the BRA built, what remains, and the basis naming the plan', async () => {
    const p = await propertyInsidePlan('bra');
    const response = await utilizationOf(p.cadastre_id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      allowedBya: p.bya_pct,
      allowedBraM2: p.bra_m2,
      builtBraM2: expect.closeTo(p.built, 1),
      remainingBraM2: expect.closeTo(p.bra_m2 - p.built, 1),
      basis: expect.stringContaining(`plan ${p.plan_id} "${p.name}"`),
    });
    expect(response.body.basis).toMatch(/BRA \d+ m² per plot/);
  });

  it('under a plan with only %-BYA: the built-over area it allows on the plot, said so in the basis', async () => {
    const p = await propertyInsidePlan('bya only');
    const response = await utilizationOf(p.cadastre_id);
    expect(response.status).toBe(200);
    expect(response.body.allowedBya).toBe(p.bya_pct);
    expect(response.body.allowedBraM2).toBeCloseTo((p.bya_pct / 100) * p.area_m2, 0);
    expect(response.body.remainingBraM2).toBeCloseTo((p.bya_pct / 100) * p.area_m2 - p.built, 0);
    expect(response.body.basis).toContain(`%-BYA ${p.bya_pct} % × plot area`);
  });

  it('answers 404 for a property no adopted plan covers (a proposal is no basis) and for a Swedish property (no plans)', async () => {
    const uncovered = await pipeline.pool.query(
      `SELECT pp.cadastre_id FROM parcel_property pp JOIN parcel p USING (country, parcel_id)
       WHERE pp.country = 'NO' AND EXISTS (SELECT 1 FROM zoning_plan z WHERE z.status = 'PROPOSED' AND ST_Within(p.geom, z.geom))
         AND NOT EXISTS (SELECT 1 FROM zoning_plan z WHERE z.status = 'ADOPTED' AND ST_Intersects(z.geom, p.geom))
       LIMIT 1`,
    );
    expect(uncovered.rowCount).toBe(1);
    const response = await utilizationOf(uncovered.rows[0].cadastre_id);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('UTILIZATION_NOT_FOUND');
    expect(await pipeline.pool.query(`SELECT count(*)::int AS n FROM utilization WHERE country = 'SE'`).then((r) => r.rows[0].n)).toBe(0);
  });

  it('takes the adopted plan with the largest overlap when several cover a property, the newest on a tie', async () => {
    // Plots at the edge of two plans in the sample: the plan over more of the plot wins.
    const straddling = await pipeline.pool.query(
      `SELECT pp.cadastre_id, z.plan_id, ST_Area(ST_Intersection(z.geom, p.geom)::geography) AS overlap
       FROM parcel_property pp JOIN parcel p USING (country, parcel_id)
       JOIN zoning_plan z ON z.country = 'NO' AND z.status = 'ADOPTED' AND ST_Intersects(z.geom, p.geom)
       WHERE pp.country = 'NO' AND (SELECT count(*) FROM parcel_property x WHERE x.cadastre_id = pp.cadastre_id) = 1
       ORDER BY pp.cadastre_id, overlap DESC`,
    );
    const plansOf = new Map<string, { plan_id: string; overlap: number }[]>();
    for (const row of straddling.rows) plansOf.set(row.cadastre_id, [...(plansOf.get(row.cadastre_id) ?? []), row]);
    const contested = [...plansOf].filter(([, plans]) => plans.length > 1 && plans[1].overlap > 5 && plans[0].overlap > plans[1].overlap + 1);
    expect(contested.length).toBeGreaterThan(0);
    for (const [cadastreId, plans] of contested.slice(0, 20)) {
      expect((await utilizationOf(cadastreId)).body.basis, cadastreId).toContain(`plan ${plans[0].plan_id} `);
    }

    // A newer adopted plan over the whole of one plot ties with the old one: the newer counts.
    const p = await propertyInsidePlan('bra');
    await pipeline.pool.query(
      `INSERT INTO zoning_plan (country, municipality_code, plan_id, name, status, adopted_date, bya_pct, bra_m2, geom, row_hash, published_run_id)
       SELECT 'NO', split_part($1, '-', 1), '20990001', 'Endring 20990001', 'ADOPTED', '2099-01-01', 45, 999, ST_Multi(ST_Expand(ST_Envelope(p.geom), 0.001)), gen_random_uuid(), 'test'
       FROM parcel_property pp JOIN parcel p USING (country, parcel_id) WHERE pp.country = 'NO' AND pp.cadastre_id = $1`,
      [p.cadastre_id],
    );
    const run = await deriveUtilization();
    // Only the plots the new plan covers change (it spills a little over the neighbours, never more than its plot's).
    const counts = sourceOf(run, 'derive-no-utilization');
    expect(counts).toMatchObject({ outcome: 'published', inserted: 0, deleted: 0 });
    expect(counts.updated).toBeGreaterThanOrEqual(1);
    expect((await utilizationOf(p.cadastre_id)).body).toMatchObject({ allowedBya: 45, allowedBraM2: 999, basis: expect.stringContaining('plan 20990001') });
  });

  it('on a changed night intersects only the changed parcels with the plans, and stores what a whole computation gives', async () => {
    const overlapsOf = async (run: RunSummary) => {
      const entry = await pipeline.pool.query(`SELECT details->'stats'->>'parcelOverlaps' AS overlaps FROM source_run WHERE run_id = $1 AND source_id = 'derive-no-utilization'`, [run.runId]);
      return entry.rows[0].overlaps as string;
    };
    const parcelsBefore = await pipeline.pool.query(`SELECT parcel_id, row_hash FROM parcel WHERE country = 'NO'`);
    // The sample's next night: about 2 % of the teiger changed, removed or replaced (sample/night.ts).
    await generateSample({ outDir: process.env.NORDPROP_INPUT_DIR!, parcels: PARCELS, seed: SEED, night: 1 });
    const night = await runRefresh(pipeline.client, pipeline.taskQueue, { country: 'NO' });
    expect(sourceOf(night, 'no-cadastre').outcome).toBe('published');
    expect(sourceOf(night.derived!, 'derive-no-utilization').outcome).toBe('published');
    const before = new Map(parcelsBefore.rows.map((row) => [row.parcel_id, row.row_hash]));
    const parcelsAfter = await pipeline.pool.query(`SELECT parcel_id, row_hash FROM parcel WHERE country = 'NO'`);
    const changedOrNew = parcelsAfter.rows.filter((row) => before.get(row.parcel_id) !== row.row_hash).length;
    expect(changedOrNew).toBeGreaterThan(0);
    expect(await overlapsOf(night.derived!)).toBe(`updated (${changedOrNew} parcels recomputed)`);

    // `nordprop derive` computes the overlaps whole again: nothing it stores differs.
    const whole = await deriveUtilization();
    expect(await overlapsOf(whole)).toBe('built');
    expect(sourceOf(whole, 'derive-no-utilization')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
  });
});
