import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';

const FILE = path.join(__dirname, '../../../fixtures/no/area/postnummeromrader-wgs84.geojson');
const GRUNNKRETSER = path.join(__dirname, '../../../fixtures/no/area/grunnkretser-oslo-25833.geojson');

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '1' });
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('no-postal-code backfill of an RFC 7946 GeoJSON', () => {
  it('publishes postal code areas as text codes, padding numbers that lost their zero', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-postal-code', input: FILE });
    expect(sourceOf(summary, 'no-postal-code')).toMatchObject({ outcome: 'published', rowsRead: 6, rowsStaged: 3, rowsRejected: 3, inserted: 3 });
    const areas = (await pipeline.pool.query(`SELECT area_kind, area_code, name, municipality_code FROM area ORDER BY area_code`)).rows;
    expect(areas).toEqual([
      { area_kind: 'POSTAL_CODE', area_code: '0150', name: 'OSLO', municipality_code: '0301' },
      { area_kind: 'POSTAL_CODE', area_code: '0151', name: 'OSLO', municipality_code: '0301' },
      { area_kind: 'POSTAL_CODE', area_code: '5003', name: 'BERGEN', municipality_code: '4601' },
    ]);
    const reasons = (await pipeline.pool.query(`SELECT position::int, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId])).rows;
    expect(reasons.map((r) => r.position)).toEqual([4, 5, 6]);
    expect(reasons[0].reason).toMatch(/^kommunenummer is missing$/);
    expect(reasons[1].reason).toMatch(/postnummer "50O5" is not 4 digits/);
    expect(reasons[2].reason).toMatch(/lies outside Norway/);
  });

  it('shares the area table with grunnkretser without either source deleting the other', async () => {
    const grunnkretser = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-grunnkrets', input: GRUNNKRETSER });
    expect(sourceOf(grunnkretser, 'no-grunnkrets')).toMatchObject({ outcome: 'published', inserted: 3, deleted: 0 });
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-postal-code', input: FILE, force: true });
    expect(sourceOf(again, 'no-postal-code')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    const kinds = (await pipeline.pool.query(`SELECT area_kind, count(*)::int AS n FROM area GROUP BY 1 ORDER BY 1`)).rows;
    expect(kinds).toEqual([{ area_kind: 'GRUNNKRETS', n: 3 }, { area_kind: 'POSTAL_CODE', n: 3 }]);
  });
});
