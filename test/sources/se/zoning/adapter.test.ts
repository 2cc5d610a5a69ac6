import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seZoning } from '../../../../sources/se/zoning/adapter.js';
import { planSwedishSample } from '../../../../sample/se/properties.js';
import { SE_ZONING_SAMPLE_FILE } from '../../../../sample/se/zoning-plans.js';
import { planSample } from '../../../../sample/plan.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tablesDigest } from '../../../support/live-snapshot.js';
import { parseAll, rowObject } from '../parse-all.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/se/zoning');
const GOOD = path.join(FIXTURES, 'stockholm-uppsala.jsonl');
const MALFORMED = path.join(FIXTURES, 'malformed.jsonl');

describe('se-zoning parsing', () => {
  it('reads every plan the sample generator writes, with the three API states and SWEREF 99 TM areas', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'se-zoning-'));
    try {
      const file = path.join(dir, seZoning.inputFileName);
      const sePlan = planSwedishSample(400, 'se-zoning-parse');
      const { rows: written } = await SE_ZONING_SAMPLE_FILE.write({ path: file, plan: planSample(400, 'se-zoning-parse'), sePlan, seed: 'se-zoning-parse', parcels: 400 });
      const { rows, rejects } = await parseAll(seZoning, file);
      expect(rejects).toEqual([]);
      expect(rows.length).toBe(written);
      const plans = rows.map((row) => rowObject(seZoning, row.values));
      expect(new Set(plans.map((p) => p.status))).toEqual(new Set(['ADOPTED', 'PROPOSED', 'REPEALED']));
      for (const plan of plans) {
        expect(plan.municipality_code).toMatch(/^\d{4}$/);
        expect(plan.geom).toMatch(/^SRID=4326;MULTIPOLYGON/);
        expect(plan.area_m2 as number).toBeGreaterThan(0);
        if (plan.status === 'ADOPTED') expect(plan.adopted_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(plan.bya_pct !== null || plan.bya_m2 !== null).toBe(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('maps a plan in force: key, status, laga kraft date, provisions, area and documents', async () => {
    const { rows, rejects } = await parseAll(seZoning, GOOD);
    expect(rejects).toEqual([]);
    const [inForce, review, repealed] = rows.map((row) => rowObject(seZoning, row.values));
    expect(inForce).toMatchObject({
      municipality_code: '0180', plan_id: '0180-P2019/12', name: 'Detaljplan för kvarteret Lärkan', status: 'ADOPTED', purpose: 'Bostäder (B)',
      adopted_date: '2020-03-09', bya_pct: 30, bya_m2: null, bta_m2: 1200, area_m2: 250000,
    });
    expect(JSON.parse(inForce.documents as string)).toEqual([
      { document_id: '0180-P2019/12-plankarta', kind: 'ZONING_PLAN', title: 'Plankarta Kvarteret Lärkan', published_date: '2020-04-02', source_url: 'https://planer.stockholm.example/0180-P2019-12/plankarta.pdf', media_type: 'application/pdf' },
      { document_id: '0180-P2019/12-planbeskrivning', kind: 'PLAN_DESCRIPTION', title: 'Planbeskrivning Kvarteret Lärkan', published_date: '2020-04-02', source_url: 'https://planer.stockholm.example/0180-P2019-12/planbeskrivning.pdf', media_type: 'application/pdf' },
    ]);
    expect(review).toMatchObject({ plan_id: '0180-P2024/5', status: 'PROPOSED', adopted_date: null, bya_pct: null, bta_m2: null, documents: '[]' });
    expect(repealed).toMatchObject({ municipality_code: '0380', status: 'REPEALED', adopted_date: '1978-06-01', bya_m2: 250, area_m2: 180000 });
  });

  it('quarantines each line it cannot use with its line number and reason', async () => {
    const { rows, rejects } = await parseAll(seZoning, MALFORMED);
    expect(rows.map((row) => row.position)).toEqual([1, 10, 11, 14]);
    const expected: [number, RegExp][] = [
      [2, /^planomrade: polygon 0 ring 0 is not closed/],
      [3, /^planomrade: polygon 0 ring 0 position 0 lies outside Sweden/],
      [4, /^schema se-zoning: \/referenssystem must be equal to constant/],
      [5, /byggnadsarea 120 % is over 100 %/],
      [6, /status lagakraftvunnen needs a lagakraftdatum/],
      [7, /^schema se-zoning: \/status must be equal to one of the allowed values/],
      [8, /utnyttjandegrad byggnadsarea_procent is given twice \(e2\)/],
      [9, /status samråd has not gained legal force, yet lagakraftdatum 2020-03-09 is given/],
      [12, /^schema se-zoning: \(record\) must have required property 'namn'/],
      [13, /lagakraftdatum 2020-01-01 is before antagandedatum 2020-02-10/],
    ];
    expect(rejects.map((r) => r.position)).toEqual(expected.map(([position]) => position));
    expected.forEach(([, reason], i) => expect(rejects[i].reason).toMatch(reason));
    expect(rejects[0].raw).toContain('0180-P2019/20');
  });
});

describe('se-zoning backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '1' });
  }, 120_000);
  afterAll(async () => {
    await pipeline?.stop();
  });
  const digest = () => tablesDigest(pipeline.pool, ['zoning_plan', 'zoning_plan_document'], 'SE');

  it('publishes plans in force, under review and repealed as Swedish zoning plans with their documents', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-zoning', input: GOOD });
    expect(sourceOf(summary, 'se-zoning')).toMatchObject({ outcome: 'published', rowsRead: 3, rowsStaged: 3, rowsRejected: 0 });
    const plans = (await pipeline.pool.query(
      `SELECT country, municipality_code, plan_id, status, adopted_date::text, bya_pct, bya_m2, bra_m2, round(area_m2) AS area_m2, ST_NumGeometries(geom) AS parts
       FROM zoning_plan ORDER BY plan_id`,
    )).rows;
    expect(plans).toEqual([
      { country: 'SE', municipality_code: '0180', plan_id: '0180-P2019/12', status: 'ADOPTED', adopted_date: '2020-03-09', bya_pct: 30, bya_m2: null, bra_m2: 1200, area_m2: 250000, parts: 1 },
      { country: 'SE', municipality_code: '0180', plan_id: '0180-P2024/5', status: 'PROPOSED', adopted_date: null, bya_pct: null, bya_m2: null, bra_m2: null, area_m2: 40000, parts: 1 },
      { country: 'SE', municipality_code: '0380', plan_id: '0380-P1978/3', status: 'REPEALED', adopted_date: '1978-06-01', bya_pct: null, bya_m2: 250, bra_m2: null, area_m2: 180000, parts: 2 },
    ]);
    // A point inside both Stockholm plans (674300 E, 6580300 N in SWEREF 99 TM).
    const covering = await pipeline.pool.query(
      `SELECT plan_id FROM zoning_plan WHERE country = 'SE' AND ST_Covers(geom, ST_Transform(ST_SetSRID(ST_MakePoint(674300, 6580300), 3006), 4326)) ORDER BY plan_id`,
    );
    expect(covering.rows.map((r) => r.plan_id)).toEqual(['0180-P2019/12', '0180-P2024/5']);
    const documents = (await pipeline.pool.query(`SELECT country, plan_id, document_id, kind FROM zoning_plan_document ORDER BY document_id`)).rows;
    expect(documents).toEqual([
      { country: 'SE', plan_id: '0180-P2019/12', document_id: '0180-P2019/12-planbeskrivning', kind: 'PLAN_DESCRIPTION' },
      { country: 'SE', plan_id: '0180-P2019/12', document_id: '0180-P2019/12-plankarta', kind: 'ZONING_PLAN' },
    ]);
  });

  it('changes nothing on the same file again, unchanged or forced', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-zoning', input: GOOD });
    expect(sourceOf(again, 'se-zoning')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-zoning', input: GOOD, force: true });
    expect(sourceOf(forced, 'se-zoning')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toEqual(before);
  });

  it('a plan repealed: one plan updated, the others untouched', async () => {
    const plans = (await readFile(GOOD, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    plans[0].status = 'upphävd';
    const changed = path.join(pipeline.dataDir, 'detaljplaner_0000_sverige-upphavd.jsonl');
    await writeFile(changed, plans.map((plan) => JSON.stringify(plan)).join('\n') + '\n');
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-zoning', input: changed });
    const tables = (await pipeline.pool.query(`SELECT details->'tables' AS t FROM source_run WHERE run_id = $1`, [summary.runId])).rows[0].t;
    expect(tables.zoning_plan).toEqual({ inserted: 0, updated: 1, deleted: 0 });
    expect((await pipeline.pool.query(`SELECT status FROM zoning_plan WHERE plan_id = '0180-P2019/12'`)).rows[0].status).toBe('REPEALED');
  });

  it('quarantines bad lines, repairs a self-intersecting area, and replaces only the municipality the file holds', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-zoning', input: MALFORMED, force: true });
    expect(sourceOf(summary, 'se-zoning')).toMatchObject({ outcome: 'published', rowsRead: 14, rowsStaged: 3, rowsRejected: 11 });
    const rejects = (await pipeline.pool.query(`SELECT position::int, disposition, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId])).rows;
    expect(rejects.map((r) => [r.position, r.disposition])).toEqual([
      [2, 'rejected'], [3, 'rejected'], [4, 'rejected'], [5, 'rejected'], [6, 'rejected'], [7, 'rejected'], [8, 'rejected'], [9, 'rejected'],
      [10, 'repaired'], [11, 'rejected'], [12, 'rejected'], [13, 'rejected'],
    ]);
    expect(rejects.find((r) => r.position === 10).reason).toMatch(/^invalid polygon: Self-intersection/);
    expect(rejects.find((r) => r.position === 11).reason).toMatch(/^duplicate key municipality_code,plan_id=0180,0180-P2019\/12 \(first at position 1\)/);
    // The file holds 0180 only: Uppsala's repealed plan stays.
    const live = (await pipeline.pool.query(`SELECT plan_id, status FROM zoning_plan ORDER BY plan_id`)).rows;
    expect(live).toEqual([
      { plan_id: '0180-P2019/12', status: 'ADOPTED' },
      { plan_id: '0180-P2019/28', status: 'ADOPTED' },
      { plan_id: '0180-P2019/32', status: 'PROPOSED' },
      { plan_id: '0380-P1978/3', status: 'REPEALED' },
    ]);
  });
});
