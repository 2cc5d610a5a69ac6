import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample } from '../../sample/generate.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runRefresh, sourceOf } from '../support/runs.js';
import { tablesDigest } from '../support/live-snapshot.js';

/**
 * The land register, zoning, area and land-allocation sources over the sample registers in one
 * nightly refresh, as the demo runs them: everything loads, is coherent with the parcels and
 * addresses, and a second night on the same files changes nothing.
 */
/**
 * Refreshed in groups of at most three sources: four stage activities at once exhaust the
 * worker's connection pool (each holds two of its eight connections and then asks for a third
 * to record its duration) and wait on each other for ever. Reported to the coordinator; until
 * the pool or stage.ts changes, a refresh of every source at once can hang the same way.
 */
const GROUPS = [['no-address', 'no-cadastre'], ['no-area', 'no-grunnkrets', 'no-postal-code'], ['no-land-allocation', 'no-land-registry', 'no-zoning']];
const SOURCES = GROUPS.flat();
const MINE = SOURCES.slice(2);
const TABLES = ['municipality', 'area', 'land_allocation', 'person', 'owner', 'property_transaction', 'transaction_party', 'zoning_plan', 'zoning_plan_document'];

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: 400, seed: 'land-and-areas' });
}, 300_000);
afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  await pipeline?.stop();
});

const digest = () => tablesDigest(pipeline.pool, TABLES);

const count = async (sql: string) => (await pipeline.pool.query(sql)).rows[0].n as number;

describe('nightly refresh of the land register, zoning and area sources over the sample', () => {
  it('publishes every sample file without a reject', { timeout: 600_000 }, async () => {
    const runs = [];
    for (const sources of GROUPS) runs.push(await runRefresh(pipeline.client, pipeline.taskQueue, { sources }));
    for (const run of runs) expect(run.outcome).toBe('succeeded');
    const summary = { ...runs[0], sources: runs.flatMap((run) => run.sources) };
    for (const id of MINE) expect(sourceOf(summary, id), id).toMatchObject({ outcome: 'published', rowsRejected: 0, rowsRepaired: id === 'no-area' ? 28 : 0 });
    // The real boundaries, 28 of them self-intersecting in the simplified file (repaired).
    expect(sourceOf(summary, 'no-area')).toMatchObject({ rowsStaged: 357 });
  });

  it('puts owners and transactions on real sample properties and sections, names only in person', async () => {
    expect(await count(`SELECT count(*)::int AS n FROM owner`)).toBeGreaterThan(600);
    expect(await count(`SELECT count(*)::int AS n FROM owner o WHERE NOT EXISTS (SELECT 1 FROM parcel_property p WHERE p.cadastre_id = o.cadastre_id)`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM property_transaction t WHERE NOT EXISTS (SELECT 1 FROM parcel_property p WHERE p.cadastre_id = t.cadastre_id)`)).toBe(0);
    expect(await count(`SELECT count(DISTINCT cadastre_id)::int AS n FROM owner WHERE split_part(cadastre_id, '-', 5) <> '0'`)).toBeGreaterThan(0);
    expect(await count(`SELECT count(*)::int AS n FROM owner WHERE kind = 'ORGANIZATION' AND org_scheme = '0192'`)).toBeGreaterThan(0);
    // Every person a right or a transfer names has a name, and nothing else carries one.
    expect(await count(`SELECT count(*)::int AS n FROM owner o WHERE o.kind = 'PERSON' AND NOT EXISTS (SELECT 1 FROM person p WHERE p.person_id = o.person_id)`)).toBe(0);
    const aName = (await pipeline.pool.query(`SELECT name FROM person ORDER BY person_id LIMIT 1`)).rows[0].name as string;
    for (const table of ['owner', 'property_transaction', 'transaction_party']) {
      expect(await count(`SELECT count(*)::int AS n FROM ${table} t WHERE strpos(t::text, '${aName.replace(/'/g, "''")}') > 0`), table).toBe(0);
    }
  });

  it('covers the addresses with their own grunnkrets and postal code, and parcels with plans', async () => {
    // Each address point lies in the postal area of its own code.
    expect(await count(`SELECT count(*)::int AS n FROM address`)).toBeGreaterThan(1000);
    expect(await count(
      `SELECT count(*)::int AS n FROM address a
       WHERE NOT EXISTS (SELECT 1 FROM area z WHERE z.area_kind = 'POSTAL_CODE' AND z.area_code = a.postal_code AND ST_Covers(z.geom, a.geom))`,
    )).toBe(0);
    // ... and in exactly one grunnkrets, in its municipality.
    expect(await count(
      `SELECT count(*)::int AS n FROM address a
       WHERE (SELECT count(*) FROM area z WHERE z.area_kind = 'GRUNNKRETS' AND z.municipality_code = a.municipality_code AND ST_Covers(z.geom, a.geom)) <> 1`,
    )).toBe(0);
    // Plans in all three states, and most parcels under one.
    const states = (await pipeline.pool.query(`SELECT DISTINCT status FROM zoning_plan ORDER BY 1`)).rows.map((r) => r.status);
    expect(states).toEqual(['ADOPTED', 'PROPOSED', 'REPEALED']);
    const covered = await count(`SELECT count(*)::int AS n FROM parcel p WHERE EXISTS (SELECT 1 FROM zoning_plan z WHERE ST_Covers(z.geom, ST_PointOnSurface(p.geom)))`);
    expect(covered / (await count(`SELECT count(*)::int AS n FROM parcel`))).toBeGreaterThan(0.85);
    // Land allocations all placed in a grunnkrets and a postal code, given or derived.
    expect(await count(`SELECT count(*)::int AS n FROM land_allocation`)).toBeGreaterThan(0);
    expect(await count(`SELECT count(*)::int AS n FROM land_allocation WHERE grunnkrets_code IS NULL OR postal_code IS NULL`)).toBe(0);
    // Municipality boundaries contain the sample's parcels.
    expect(await count(
      `SELECT count(*)::int AS n FROM parcel p JOIN municipality m ON m.code = p.municipality_code WHERE ST_Covers(m.geom, ST_PointOnSurface(p.geom))`,
    ) / (await count(`SELECT count(*)::int AS n FROM parcel`))).toBeGreaterThan(0.95);
  });

  it('changes nothing on a second night over the same files', { timeout: 600_000 }, async () => {
    const before = await digest();
    for (const sources of GROUPS) {
      const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources });
      for (const id of sources) expect(sourceOf(summary, id), id).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    }
    for (const sources of GROUPS.slice(1)) {
      const forced = await runRefresh(pipeline.client, pipeline.taskQueue, { sources, force: true });
      for (const id of sources) expect(sourceOf(forced, id), id).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    }
    expect(await digest()).toEqual(before);
  });
});
