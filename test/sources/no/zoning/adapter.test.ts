import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tablesDigest } from '../../../support/live-snapshot.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/zoning');
const GOOD = path.join(FIXTURES, 'oslo-bergen.jsonl');

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '1' });
});
afterAll(async () => {
  await pipeline?.stop();
});

const digest = () => tablesDigest(pipeline.pool, ['zoning_plan', 'zoning_plan_document']);

describe('no-zoning backfill through the worker', () => {
  it('publishes adopted, proposed and repealed plans with their areas, rules and documents', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-zoning', input: GOOD });
    expect(sourceOf(summary, 'no-zoning')).toMatchObject({ outcome: 'published', rowsRead: 3, rowsStaged: 3, rowsRejected: 0 });
    const plans = (await pipeline.pool.query(
      `SELECT municipality_code, plan_id, status, status_code, purpose, adopted_date::text, bya_pct, bra_m2, round(area_m2) AS area_m2,
              ST_NumGeometries(geom) AS parts, ST_IsValid(geom) AS valid
       FROM zoning_plan ORDER BY municipality_code, plan_id`,
    )).rows;
    expect(plans).toEqual([
      { municipality_code: '0301', plan_id: '2019012', status: 'ADOPTED', status_code: 3, purpose: 'Boligbebyggelse', adopted_date: '2020-03-01', bya_pct: 30, bra_m2: 1200, area_m2: 250000, parts: 1, valid: true },
      { municipality_code: '0301', plan_id: '2024105', status: 'PROPOSED', status_code: 2, purpose: 'Kombinert bebyggelse og anleggsformål', adopted_date: null, bya_pct: null, bra_m2: null, area_m2: expect.any(Number), parts: 1, valid: true },
      { municipality_code: '4601', plan_id: '63560000', status: 'REPEALED', status_code: 4, purpose: 'Bevaring', adopted_date: '1976-06-14', bya_pct: null, bra_m2: null, area_m2: expect.any(Number), parts: 2, valid: true },
    ]);
    // Plans covering a point of the adopted plan's block (262250 E, 6649250 N in EPSG:25833).
    const covering = await pipeline.pool.query(
      `SELECT plan_id FROM zoning_plan WHERE ST_Covers(geom, ST_Transform(ST_SetSRID(ST_MakePoint(262250, 6649250), 25833), 4326)) ORDER BY plan_id`,
    );
    expect(covering.rows.map((r) => r.plan_id)).toEqual(['2019012', '2024105']);

    const documents = (await pipeline.pool.query(`SELECT plan_id, document_id, kind, title, published_date::text, source_url, media_type FROM zoning_plan_document ORDER BY document_id`)).rows;
    expect(documents).toEqual([
      { plan_id: '2019012', document_id: '2019012-bestemmelser', kind: 'ZONING_REGULATIONS', title: 'Reguleringsbestemmelser Kvartal 12', published_date: '2020-03-05', source_url: 'https://innsyn.pbe.oslo.kommune.no/saksinnsyn/plan/2019012/bestemmelser.pdf', media_type: 'application/pdf' },
      { plan_id: '2019012', document_id: '2019012-plankart', kind: 'ZONING_PLAN', title: 'Plankart Kvartal 12', published_date: '2020-03-05', source_url: 'https://innsyn.pbe.oslo.kommune.no/saksinnsyn/plan/2019012/plankart.pdf', media_type: 'application/pdf' },
    ]);
  });

  it('changes nothing on the same file again, unchanged or forced', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-zoning', input: GOOD });
    expect(sourceOf(again, 'no-zoning')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-zoning', input: GOOD, force: true });
    expect(sourceOf(forced, 'no-zoning')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toEqual(before);
  });

  it('repeals a plan: one plan updated, its documents rewritten, the others untouched', async () => {
    const plans = (await readFile(GOOD, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    plans[0].planstatus = 4;
    plans[0].dokumenter.pop();
    const changed = path.join(pipeline.dataDir, 'oslo-bergen-repealed.jsonl');
    await writeFile(changed, plans.map((plan) => JSON.stringify(plan)).join('\n') + '\n');
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-zoning', input: changed });
    const tables = (await pipeline.pool.query(`SELECT details->'tables' AS t FROM source_run WHERE run_id = $1`, [summary.runId])).rows[0].t;
    expect(tables).toEqual({ zoning_plan: { inserted: 0, updated: 1, deleted: 0 }, zoning_plan_document: { inserted: 1, updated: 0, deleted: 2 } });
    expect((await pipeline.pool.query(`SELECT status FROM zoning_plan WHERE plan_id = '2019012'`)).rows[0].status).toBe('REPEALED');
  });

  it('rejects each malformed plan with its line and reason', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-zoning', input: path.join(FIXTURES, 'malformed.jsonl'), force: true });
    expect(sourceOf(summary, 'no-zoning')).toMatchObject({ outcome: 'published', rowsRead: 12, rowsStaged: 2, rowsRejected: 10 });
    const rejects = (await pipeline.pool.query(`SELECT position::int, disposition, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId])).rows;
    const expected: [number, string, RegExp][] = [
      [2, 'rejected', /^område: polygon 0 ring 0 is not closed/],
      [3, 'rejected', /^område: polygon 0 ring 0 position 0 lies outside Norway/],
      [4, 'rejected', /^schema no-zoning: \/koordinatsystem must match pattern/],
      [5, 'rejected', /utnytting %-BYA 120 is over 100 %/],
      [6, 'rejected', /planstatus 3 \(adopted\) needs an ikrafttredelsesdato/],
      [7, 'rejected', /^schema no-zoning: \/planstatus must be equal to one of the allowed values/],
      [8, 'rejected', /utnytting BRA is given twice/],
      [9, 'rejected', /dokumenter: 2019012-plankart is listed twice/],
      [10, 'repaired', /^invalid polygon: Self-intersection/],
      [11, 'rejected', /^duplicate key municipality_code,plan_id=0301,2019012 \(first at position 1\)/],
      [12, 'rejected', /^schema no-zoning: \(record\) must have required property 'plannavn'/],
    ];
    expect(rejects.map((r) => [r.position, r.disposition])).toEqual(expected.map(([p, d]) => [p, d]));
    expected.forEach(([, , reason], i) => expect(rejects[i].reason).toMatch(reason));
    // The file covers 0301 only: Bergen's repealed plan stays; 0301 now has the two staged plans.
    const live = (await pipeline.pool.query(`SELECT plan_id FROM zoning_plan ORDER BY plan_id`)).rows.map((r) => r.plan_id);
    expect(live).toEqual(['2019012', '63560000', 'B9']);
  });
});
