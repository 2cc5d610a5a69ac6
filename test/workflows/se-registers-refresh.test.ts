import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSample } from '../../sample/plan.js';
import { SAMPLE_REGISTER_FILES } from '../../sample/register-files.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runRefresh, sourceOf } from '../support/runs.js';
import { tablesDigest } from '../support/live-snapshot.js';

/**
 * The Swedish energy, company, price and area sources over the Swedish sample in one nightly
 * refresh, beside the cadastre they refer to: every file loads without a reject, what they
 * publish points at real sample properties, addresses and municipalities, and a second night
 * on the same files changes nothing.
 */
const PARCELS = 500;
const SEED = 'se-registers-refresh';
const MINE = ['se-energy', 'se-business', 'se-transactions', 'se-area'];
const SOURCES = ['se-cadastre', ...MINE];
// Refreshed in groups: four concurrent stages can exhaust the worker's connection pool (each holds
// two of eight connections and waits for a third), see test/workflows/no-land-and-areas-refresh.test.ts.
const GROUPS = [['se-cadastre', 'se-energy', 'se-business'], ['se-transactions', 'se-area']];
const TABLES = ['energy_certificate', 'company', 'company_address', 'company_workplace', 'property_transaction', 'transaction_party', 'owner', 'person', 'municipality', 'area', 'land_allocation'];

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  await mkdir(sampleDir, { recursive: true });
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  const plan = planSample(PARCELS, SEED);
  for (const file of SAMPLE_REGISTER_FILES.filter((file) => file.country === 'SE')) {
    if (SOURCES.includes(file.sourceId)) await file.write({ path: path.join(sampleDir, file.fileName), plan, seed: SEED, parcels: PARCELS });
  }
});
afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  await pipeline?.stop();
});

const count = async (sql: string) => (await pipeline.pool.query(sql)).rows[0].n as number;

const digest = () => tablesDigest(pipeline.pool, TABLES, 'SE');

describe('nightly refresh of the Swedish energy, company, price and area sources over the sample', () => {
  it('publishes every sample file without a reject', async () => {
    for (const sources of GROUPS) {
      const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources });
      expect(summary.outcome).toBe('succeeded');
      for (const id of sources) expect(sourceOf(summary, id), id).toMatchObject({ outcome: 'published', rowsRejected: 0 });
    }
    expect(await count(`SELECT count(*)::int AS n FROM municipality WHERE country = 'SE'`)).toBe(290);
  });

  it('puts declarations, sales and title holders on real sample properties', async () => {
    expect(await count(`SELECT count(*)::int AS n FROM energy_certificate WHERE country = 'SE'`)).toBeGreaterThan(PARCELS * 0.2);
    expect(await count(`SELECT count(*)::int AS n FROM property_transaction WHERE country = 'SE'`)).toBeGreaterThan(PARCELS * 0.2);
    for (const table of ['energy_certificate', 'property_transaction', 'owner']) {
      const orphans = await count(
        `SELECT count(*)::int AS n FROM ${table} t WHERE t.country = 'SE' AND NOT EXISTS (SELECT 1 FROM property p WHERE p.country = 'SE' AND p.cadastre_id = t.cadastre_id)`,
      );
      expect(orphans, table).toBe(0);
    }
    // Names only in person, and every person named by a right.
    expect(await count(`SELECT count(*)::int AS n FROM person p WHERE country = 'SE' AND NOT EXISTS (SELECT 1 FROM transaction_party tp WHERE tp.country = 'SE' AND tp.person_id = p.person_id)`)).toBe(0);
  });

  it('puts companies at the sample postal codes, and land allocations inside their municipality', async () => {
    expect(await count(`SELECT count(*)::int AS n FROM company WHERE org_scheme = '0007' AND nace_code IS NOT NULL`)).toBeGreaterThan(50);
    const strayPostal = await count(
      `SELECT count(*)::int AS n FROM company_address a WHERE a.org_scheme = '0007' AND a.address_kind IN ('BUSINESS', 'VISITING')
       AND NOT EXISTS (SELECT 1 FROM area p WHERE p.country = 'SE' AND p.area_kind = 'POSTAL_CODE' AND p.area_code = a.postal_code)`,
    );
    // The sample writes the neighbouring postal code for about 2% of companies (register noise
    // the tenants matching must survive); that code may not exist.
    const addresses = await count(`SELECT count(*)::int AS n FROM company_address WHERE org_scheme = '0007' AND address_kind IN ('BUSINESS', 'VISITING')`);
    expect(strayPostal).toBeLessThanOrEqual(Math.ceil(addresses * 0.02));
    const allocations = await pipeline.pool.query(
      `SELECT l.allocation_id, l.municipality_code, (SELECT string_agg(m.code, ',') FROM municipality m WHERE m.country = 'SE' AND ST_Covers(m.geom, ST_PointOnSurface(l.geom))) AS inside
       FROM land_allocation l WHERE l.country = 'SE'`,
    );
    expect(allocations.rows.length).toBeGreaterThan(0);
    for (const row of allocations.rows) expect(row.inside, row.allocation_id).toBe(row.municipality_code);
  });

  it('changes nothing on a second night over the same files', async () => {
    const before = await digest();
    for (const sources of GROUPS) {
      const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources });
      for (const id of sources) expect(sourceOf(summary, id), id).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    }
    expect(await digest()).toEqual(before);
  });
});
