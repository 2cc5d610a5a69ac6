import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../activities/types.js';
import type { DeriveInput } from '../../../workflows/derive.js';
import { PROJECT_ROOT } from '../../../lib/config.js';
import { COUNTRIES } from '../../../lib/domain/country.js';
import { generateSample } from '../../../sample/generate.js';
import { planSample } from '../../../sample/plan.js';
import { sampleCompanies } from '../../../sample/no/companies.js';
import { evaluateTenants, renderTenantScores, type CountryScore } from '../../../evaluations/tenants.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { tableDigest } from '../../support/live-snapshot.js';
import { runDerive, runRefresh, sourceOf } from '../../support/runs.js';
import { clientWithToken, get, startApiServer } from '../../api/support/api-server.js';

const PARCELS = 1200;
const SEED = 'tenants-test';
let pipeline: TestPipeline;
let nightly: RunSummary;
let scores: CountryScore[];

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  nightly = await runRefresh(pipeline.client, pipeline.taskQueue);
  scores = await evaluateTenants(pipeline.pool, { parcels: PARCELS, seed: SEED });
  console.log(`tenants on the ${PARCELS}-parcel sample (seed ${SEED}):\n${renderTenantScores(scores)}`);
}, 600_000);
afterAll(async () => {
  await pipeline?.stop();
});

const derive = (args: Omit<DeriveInput, 'runId'> = {}): Promise<RunSummary> => runDerive(pipeline.client, pipeline.taskQueue, args);

const level = (country: string, name: string) => scores.find((s) => s.country === country)!.levels.find((l) => l.level === name)!;

describe('tenants, computed by the nightly refresh after its sources', () => {
  it('runs as a derive run of its own after every source published, each dataset and country ledgered', async () => {
    expect(nightly.outcome).toBe('succeeded');
    const derived = nightly.derived!;
    expect(derived).toMatchObject({ runId: `${nightly.runId}-derive`, kind: 'derive', outcome: 'succeeded' });
    expect(derived.sources.map((s) => s.sourceId)).toEqual(expect.arrayContaining(['derive-no-tenants', 'derive-se-tenants', 'derive-no-utilization', 'derive-se-utilization']));
    const companies = [...sampleCompanies(planSample(PARCELS, SEED))].length;
    expect(sourceOf(derived, 'derive-no-tenants')).toMatchObject({ outcome: 'published', rowsRead: companies, deleted: 0, updated: 0 });
    expect(sourceOf(derived, 'derive-no-tenants').inserted).toBeGreaterThan(0.95 * companies);
    // `nordprop runs` reads the same ledger.
    const ledger = await pipeline.pool.query(`SELECT kind, outcome FROM run WHERE run_id = $1`, [derived.runId]);
    expect(ledger.rows).toEqual([{ kind: 'derive', outcome: 'succeeded' }]);
  });

  it('finds the sample companies where the generator put them: HIGH precision ≥ 99 % and recall ≥ 95 % in both countries', () => {
    for (const country of COUNTRIES) {
      const high = level(country, 'HIGH');
      expect(scores.find((s) => s.country === country)!.truthPairs).toBeGreaterThan(100);
      expect(high.precision, `${country} HIGH precision`).toBeGreaterThanOrEqual(0.99);
      expect(high.recall, `${country} HIGH recall`).toBeGreaterThanOrEqual(0.95);
      // The lower confidences add matches without spoiling the whole.
      expect(level(country, 'all').precision!).toBeGreaterThanOrEqual(0.97);
    }
  });

  it('fills what the API serves: source, confidence, dates, owner flag, unit where known', async () => {
    const rows = await pipeline.pool.query(
      `SELECT country, verification_source, confidence, count(*)::int AS n, count(*) FILTER (WHERE is_owner)::int AS owners,
              count(unit_number)::int AS units, count(moved_in_date)::int AS moved, count(last_seen_at)::int AS seen
       FROM tenant GROUP BY 1, 2, 3 ORDER BY 1, 3`,
    );
    const no = rows.rows.filter((r) => r.country === 'NO');
    expect(no.every((r) => r.verification_source === 'ENHETSREGISTERET')).toBe(true);
    expect(rows.rows.filter((r) => r.country === 'SE').every((r) => r.verification_source === 'FORETAGSREGISTRET')).toBe(true);
    for (const r of rows.rows) expect([r.moved, r.seen]).toEqual([r.n, r.n]);
    expect(no.reduce((n, r) => n + r.owners, 0)).toBeGreaterThan(0);
    expect(no.reduce((n, r) => n + r.units, 0)).toBeGreaterThan(0);
    // An owner flag is true exactly when the land register names the company (or its parent) as a title holder of the property.
    const wrong = await pipeline.pool.query(
      `SELECT t.cadastre_id, t.org_id, t.is_owner FROM tenant t JOIN company c USING (org_scheme, org_id)
       WHERE t.is_owner <> EXISTS (SELECT 1 FROM owner o WHERE o.country = t.country AND o.org_scheme = t.org_scheme
                                     AND o.org_id IN (c.org_id, c.parent_org_id)
                                     AND (o.cadastre_id = t.cadastre_id OR o.cadastre_id IN (SELECT cadastre_id FROM section s WHERE s.property_cadastre_id = t.cadastre_id)))`,
    );
    expect(wrong.rows).toEqual([]);
    // A sub-unit moved in when it started at its location (oppstartsdato); a main unit when it was registered.
    const dates = await pipeline.pool.query(
      `SELECT count(*) FILTER (WHERE c.is_sub_unit AND t.moved_in_date <> c.founded_date)::int AS sub_wrong,
              count(*) FILTER (WHERE NOT c.is_sub_unit AND t.moved_in_date <> c.registered_date)::int AS main_wrong
       FROM tenant t JOIN company c USING (org_scheme, org_id) WHERE t.country = 'NO'`,
    );
    expect(dates.rows[0]).toEqual({ sub_wrong: 0, main_wrong: 0 });
  });

  it('are served by GET /properties/{country}/{cadastreId}/tenants as the spec shapes a Tenant', async () => {
    // An owning tenant, one with a unit number if there is one.
    const row = (
      await pipeline.pool.query(`SELECT t.*, api_timestamp(t.last_seen_at) AS seen FROM tenant t WHERE t.country = 'NO' AND t.is_owner ORDER BY t.unit_number NULLS LAST, t.org_id LIMIT 1`)
    ).rows[0];
    const api = await startApiServer(pipeline.pool);
    try {
      const reader = await clientWithToken(pipeline.pool, api.baseUrl, { scopes: ['properties.read'] });
      const response = await get(api.baseUrl, `/properties/NO/${row.cadastre_id}/tenants`, reader.token);
      expect(response.status).toBe(200);
      expect(response.body.items).toContainEqual(
        expect.objectContaining({
          organization: { organizationIdentifier: { scheme: '0192', id: row.org_id }, name: row.name, country: 'NO' },
          verification: { source: 'ENHETSREGISTERET', confidence: row.confidence, lastSeenAt: row.seen },
          isOwner: true,
          movedInDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          ...(row.unit_number ? { unitNumber: row.unit_number } : {}),
        }),
      );
    } finally {
      await api.close();
    }
  });

  it('changes nothing when run again on unchanged inputs (0 inserted, 0 updated, 0 deleted)', async () => {
    const before = { tenant: await tableDigest(pipeline.pool, 'tenant'), utilization: await tableDigest(pipeline.pool, 'utilization') };
    const again = await derive();
    expect(again.outcome).toBe('succeeded');
    for (const s of again.sources) expect([s.sourceId, s.outcome, s.inserted, s.updated, s.deleted]).toEqual([s.sourceId, 'published', 0, 0, 0]);
    expect({ tenant: await tableDigest(pipeline.pool, 'tenant'), utilization: await tableDigest(pipeline.pool, 'utilization') }).toEqual(before);
  });

  it('follows a change in the business register: a renamed company is updated, a company that moved away is deleted, only there', async () => {
    const [renamed, moved] = (
      await pipeline.pool.query(`SELECT org_scheme, org_id, cadastre_id FROM tenant WHERE country = 'NO' AND confidence = 'HIGH' ORDER BY org_id LIMIT 2`)
    ).rows;
    await pipeline.pool.query(`UPDATE company SET name = name || ' OMDØPT', updated_at = now() WHERE org_scheme = $1 AND org_id = $2`, [renamed.org_scheme, renamed.org_id]);
    // Moved abroad: its business address is no longer a Norwegian street address.
    await pipeline.pool.query(
      `UPDATE company_address SET address_lines = ARRAY['Kungsgatan 1'], postal_code = '11143', country = 'SE' WHERE org_scheme = $1 AND org_id = $2 AND address_kind = 'BUSINESS'`,
      [moved.org_scheme, moved.org_id],
    );
    const run = await derive({ datasets: ['tenants'], countries: ['NO'] });
    expect(run.sources.map((s) => s.sourceId)).toEqual(['derive-no-tenants']);
    expect(sourceOf(run, 'derive-no-tenants')).toMatchObject({ outcome: 'published', inserted: 0, updated: 1, deleted: 1 });
    const after = await pipeline.pool.query(`SELECT org_id, name FROM tenant WHERE org_id = ANY($1::text[]) ORDER BY org_id`, [[renamed.org_id, moved.org_id]]);
    expect(after.rows).toEqual([{ org_id: renamed.org_id, name: expect.stringMatching(/ OMDØPT$/) }]);
  });

  it('is started alone by `nordprop derive --dataset … --country … --as-of … --wait --json`, and refuses a bad date', async () => {
    const run = promisify(execFile);
    const cli = (...args: string[]) =>
      run(path.join(PROJECT_ROOT, 'node_modules/.bin/tsx'), [path.join(PROJECT_ROOT, 'cli/main.ts'), 'derive', ...args], { env: { ...process.env } }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
      );
    const result = await cli('--dataset', 'tenants', '--dataset', 'utilization', '--country', 'SE', '--as-of', '2026-11-20', '--wait', '--json');
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ kind: 'derive', outcome: 'succeeded' });
    expect(summary.sources.map((s: { sourceId: string }) => s.sourceId).sort()).toEqual(['derive-se-tenants', 'derive-se-utilization']);
    const asOf = await pipeline.pool.query(`SELECT DISTINCT details->>'asOf' AS as_of FROM source_run WHERE run_id = $1`, [summary.runId]);
    expect(asOf.rows).toEqual([{ as_of: '2026-11-20' }]);
    const bad = await cli('--as-of', '2026-02-30');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/option '--as-of <date>' argument '2026-02-30' is invalid/);
    const unknown = await cli('--dataset', 'rents');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown dataset "rents"/);
  });
});
