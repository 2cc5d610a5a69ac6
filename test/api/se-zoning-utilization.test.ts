import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { planSample } from '../../sample/plan.js';
import { planSwedishSample } from '../../sample/se/properties.js';
import { SE_GEODATA_SAMPLE_FILES } from '../../sample/se/write-geopackages.js';
import { SE_AREA_SAMPLE_FILE } from '../../sample/se/areas.js';
import { SE_ZONING_SAMPLE_FILE } from '../../sample/se/zoning-plans.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runDerive, runRefresh, sourceOf } from '../support/runs.js';
import { call, clientWithToken, get, startApiServer, type ApiServer, type TestClient } from './support/api-server.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * Swedish detaljplaner through the API: the sample's parcels, buildings, municipalities and plans
 * published by the real se-cadastre, se-building, se-area and se-zoning sources, utilization derived for Sweden, then
 * what a user reads at /properties/SE/{id}/zoning-plans and /utilization.
 */
const PARCELS = 600;
const SEED = 'se-zoning-api';
let pipeline: TestPipeline;
let server: ApiServer;
let db: pg.Pool;
let reader: TestClient;

beforeAll(async () => {
  pipeline = await startPipeline();
  const inputDir = path.join(pipeline.dataDir, 'sample');
  await mkdir(inputDir, { recursive: true });
  process.env.NORDPROP_INPUT_DIR = inputDir;
  const context = { plan: planSample(PARCELS, SEED), sePlan: planSwedishSample(PARCELS, SEED), seed: SEED, parcels: PARCELS };
  for (const file of [...SE_GEODATA_SAMPLE_FILES.filter((f) => f.sourceId !== 'se-address'), SE_AREA_SAMPLE_FILE, SE_ZONING_SAMPLE_FILE]) {
    await file.write({ ...context, path: path.join(inputDir, file.fileName) });
  }
  const refresh = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['se-cadastre', 'se-building', 'se-area', 'se-zoning'] });
  if (refresh.outcome !== 'succeeded') throw new Error(`Swedish refresh ${refresh.outcome}`);
  const derive = await runDerive(pipeline.client, pipeline.taskQueue, { datasets: ['utilization'], countries: ['SE'] });
  expect(sourceOf(derive, 'derive-se-utilization').outcome).toBe('published');
  db = pipeline.pool;
  server = await startApiServer(db);
  reader = await clientWithToken(db, server.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000 });
}, 600_000);
afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  await server?.close();
  await pipeline?.stop();
});

/** A Swedish property with buildings whose one parcel lies wholly inside one adopted plan and no other adopted plan. */
async function builtPropertyInsideAdoptedPlan(rule: 'percent' | 'm2') {
  const result = await db.query(
    `SELECT pp.cadastre_id, p.area_m2 AS plot, z.municipality_code, z.plan_id, z.name, z.bya_pct, z.bya_m2, z.bra_m2, z.adopted_date::text,
            (SELECT sum(b.footprint_m2) FROM building b WHERE b.country = 'SE' AND b.cadastre_id = pp.cadastre_id) AS built_over
     FROM parcel_property pp JOIN parcel p USING (country, parcel_id)
     JOIN zoning_plan z ON z.country = 'SE' AND z.status = 'ADOPTED' AND ST_Within(p.geom, z.geom)
     WHERE pp.country = 'SE' AND ${rule === 'percent' ? 'z.bya_pct IS NOT NULL' : 'z.bya_m2 IS NOT NULL'}
       AND (SELECT count(*) FROM parcel_property x WHERE x.country = 'SE' AND x.cadastre_id = pp.cadastre_id) = 1
       AND NOT EXISTS (SELECT 1 FROM zoning_plan o WHERE o.country = 'SE' AND o.status = 'ADOPTED' AND o.plan_id <> z.plan_id AND ST_Intersects(o.geom, p.geom)
                       AND ST_Area(ST_Intersection(o.geom, p.geom)::geography) > 1)
       AND EXISTS (SELECT 1 FROM building b WHERE b.country = 'SE' AND b.cadastre_id = pp.cadastre_id AND b.footprint_m2 > 0)
     ORDER BY pp.cadastre_id LIMIT 1`,
  );
  expect(result.rowCount, `a sample property inside a plan with a byggnadsarea ${rule} rule`).toBe(1);
  return result.rows[0];
}

const propertyPath = (cadastreId: string) => `/properties/SE/${encodeURIComponent(cadastreId)}`;

describe('Swedish zoning plans and utilization through the API', () => {
  it('/zoning-plans lists the plans covering a property: the plan in force with its laga kraft date, municipality and signed documents', async () => {
    const p = await builtPropertyInsideAdoptedPlan('percent');
    const response = await get(server.baseUrl, `${propertyPath(p.cadastre_id)}/zoning-plans`, reader.token);
    expect(response.status).toBe(200);
    const plan = response.body.items.find((item: { planId: string }) => item.planId === p.plan_id);
    expect(plan).toMatchObject({
      planId: p.plan_id,
      name: p.name,
      status: 'ADOPTED',
      adoptedDate: p.adopted_date,
      municipality: { code: p.municipality_code, name: expect.any(String) },
    });
    expect(typeof plan.purpose).toBe('string');
    expect(plan.documents.map((d: { kind: string }) => d.kind).sort()).toEqual(['PLAN_DESCRIPTION', 'ZONING_PLAN']);
    // The signed URL (the plan id carries a "/") redirects to the document where the municipality keeps it.
    const plankarta = plan.documents.find((d: { kind: string }) => d.kind === 'ZONING_PLAN');
    const download = await call(server.baseUrl, 'GET', new URL(plankarta.downloadUrl).pathname + new URL(plankarta.downloadUrl).search, {});
    expect(download.status).toBe(302);
    expect(download.headers.get('location')).toBe(`https://planer.example.se/${p.municipality_code}/${encodeURIComponent(p.plan_id)}/plankarta.pdf`);
  });

  it('/zoning-plans shows proposed and repealed plans too, and is empty where no plan covers the property', async () => {
    const states = (await db.query(`SELECT DISTINCT status FROM zoning_plan WHERE country = 'SE' ORDER BY status`)).rows.map((r) => r.status);
    expect(states).toEqual(['ADOPTED', 'PROPOSED', 'REPEALED']);
    for (const status of ['PROPOSED', 'REPEALED']) {
      const { rows } = await db.query(
        `SELECT pp.cadastre_id, z.plan_id FROM zoning_plan z JOIN parcel p ON p.country = z.country AND ST_Within(p.geom, z.geom)
         JOIN parcel_property pp ON pp.country = p.country AND pp.parcel_id = p.parcel_id
         WHERE z.country = 'SE' AND z.status = $1 ORDER BY pp.cadastre_id LIMIT 1`,
        [status],
      );
      const response = await get(server.baseUrl, `${propertyPath(rows[0].cadastre_id)}/zoning-plans`, reader.token);
      expect(response.body.items.find((item: { planId: string }) => item.planId === rows[0].plan_id)?.status, status).toBe(status);
    }
    const uncovered = await db.query(
      `SELECT pp.cadastre_id FROM parcel_property pp JOIN parcel p USING (country, parcel_id)
       WHERE pp.country = 'SE' AND NOT EXISTS (SELECT 1 FROM zoning_plan z WHERE z.country = 'SE' AND ST_Intersects(z.geom, p.geom)) ORDER BY 1 LIMIT 1`,
    );
    if (uncovered.rowCount) {
      const response = await get(server.baseUrl, `${propertyPath(uncovered.rows[0].cadastre_id)}/zoning-plans`, reader.token);
      expect(response.status).toBe(200);
      expect(response.body.items).toEqual([]);
    }
  });

  it('/utilization under a byggnadsarea percent provision: the allowed share, the allowed floor area, the built-over share, and a basis naming the plan', async () => {
    const p = await builtPropertyInsideAdoptedPlan('percent');
    const response = await get(server.baseUrl, `${propertyPath(p.cadastre_id)}/utilization`, reader.token);
    expect(response.status).toBe(200);
    const allowedFloor = p.bra_m2 ?? (p.bya_pct / 100) * p.plot;
    const share = ((100 * p.built_over) / p.plot).toFixed(1);
    expect(response.body).toEqual({ allowedBya: p.bya_pct, allowedBraM2: expect.closeTo(allowedFloor, 0), builtBya: Number(share), basis: expect.any(String) });
    expect(response.body.basis).toContain(`Plan in force ${p.plan_id} "${p.name}" (laga kraft ${p.adopted_date})`);
    expect(response.body.basis).toContain(`byggnadsarea ${p.bya_pct} % of the plot`);
    expect(response.body.basis).toContain(`= ${share} % of the plot`);
    expect(response.body.basis).toContain('no floor area built or remaining');
  });

  it('/utilization under a byggnadsarea m² provision: the allowed share is that area over the plot', async () => {
    const p = await builtPropertyInsideAdoptedPlan('m2');
    const response = await get(server.baseUrl, `${propertyPath(p.cadastre_id)}/utilization`, reader.token);
    expect(response.status).toBe(200);
    expect(response.body.allowedBya).toBeCloseTo(Math.min(100, (100 * p.bya_m2) / p.plot), 1);
    expect(response.body.basis).toContain(`byggnadsarea ${p.bya_m2} m² per property`);
  });

  it('/utilization is 404 for a property under no plan in force', async () => {
    const { rows } = await db.query(
      `SELECT pp.cadastre_id FROM parcel_property pp JOIN parcel p USING (country, parcel_id)
       WHERE pp.country = 'SE' AND NOT EXISTS (SELECT 1 FROM zoning_plan z WHERE z.country = 'SE' AND z.status = 'ADOPTED' AND ST_Intersects(z.geom, p.geom))
       ORDER BY 1 LIMIT 1`,
    );
    const response = await get(server.baseUrl, `${propertyPath(rows[0].cadastre_id)}/utilization`, reader.token);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('UTILIZATION_NOT_FOUND');
  });

  it('every answer above matches /openapi.yaml', async () => {
    const { document } = await fetchOpenApi(server.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
