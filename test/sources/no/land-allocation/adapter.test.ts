import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/land-allocation');
const GOOD = path.join(FIXTURES, 'oslo-bergen.jsonl');
const GRUNNKRETSER = path.join(__dirname, '../../../fixtures/no/area/grunnkretser-oslo-25833.geojson');
const POSTAL = path.join(__dirname, '../../../fixtures/no/area/postnummeromrader-wgs84.geojson');

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '1' });
});
afterAll(async () => {
  await pipeline?.stop();
});

async function digest(): Promise<string> {
  return (await pipeline.pool.query(`SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, '|' ORDER BY allocation_id), '')) AS d FROM land_allocation t`)).rows[0].d;
}

describe('no-land-allocation backfill through the worker', () => {
  it('publishes allocations, finding the grunnkrets and postal code of a position the file leaves open', async () => {
    for (const [sourceId, input] of [['no-grunnkrets', GRUNNKRETSER], ['no-postal-code', POSTAL]]) {
      expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input }), sourceId).outcome).toBe('published');
    }
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-allocation', input: GOOD });
    expect(sourceOf(summary, 'no-land-allocation')).toMatchObject({ outcome: 'published', rowsRead: 3, rowsStaged: 3, rowsRejected: 0, inserted: 3 });
    const rows = (await pipeline.pool.query(
      `SELECT allocation_id, municipality_code, grunnkrets_code, postal_code, title, purpose, status, area_m2, price_amount, price_currency,
              announced_date::text, deadline_date::text, url, round(ST_X(geom)::numeric, 4)::float AS lon, round(ST_Y(geom)::numeric, 4)::float AS lat
       FROM land_allocation ORDER BY allocation_id`,
    )).rows;
    expect(rows).toEqual([
      // 262250 E, 6649250 N lies in grunnkrets 03010101 and postal code 0151.
      { allocation_id: '0301-2024-017', municipality_code: '0301', grunnkrets_code: '03010101', postal_code: '0151', title: 'Boligtomt i Sentrum nord', purpose: 'Bolig', status: 'ANNOUNCED', area_m2: 812.5, price_amount: 3250000, price_currency: 'NOK', announced_date: '2024-03-01', deadline_date: '2024-04-15', url: 'https://www.oslo.kommune.no/tomter/2024-017', lon: expect.closeTo(10.7469, 3), lat: expect.closeTo(59.912, 3) },
      { allocation_id: '0301-2024-018', municipality_code: '0301', grunnkrets_code: '03010102', postal_code: '0151', title: 'Næringstomt Sentrum sør', purpose: 'Næring', status: 'ALLOCATED', area_m2: null, price_amount: null, price_currency: null, announced_date: null, deadline_date: null, url: null, lon: null, lat: null },
      { allocation_id: '4601-T-55', municipality_code: '4601', grunnkrets_code: null, postal_code: '5003', title: 'Tomt for barnehage', purpose: null, status: 'IN_PROGRESS', area_m2: null, price_amount: null, price_currency: null, announced_date: null, deadline_date: null, url: null, lon: 5.3242, lat: 60.3975 },
    ]);
  });

  it('changes nothing on the same file again, unchanged or forced', async () => {
    const before = await digest();
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-allocation', input: GOOD }), 'no-land-allocation').outcome).toBe('unchanged');
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-allocation', input: GOOD, force: true });
    expect(sourceOf(forced, 'no-land-allocation')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toBe(before);
  });

  it('rejects each malformed allocation with its line and reason', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-allocation', input: path.join(FIXTURES, 'malformed.jsonl'), force: true });
    expect(sourceOf(summary, 'no-land-allocation')).toMatchObject({ outcome: 'published', rowsRead: 8, rowsStaged: 1, rowsRejected: 7 });
    const rejects = (await pipeline.pool.query(`SELECT position::int, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId])).rows;
    const expected: [number, RegExp][] = [
      [2, /^schema no-land-allocation: \(record\) must have required property 'status'/],
      [3, /grunnkretsnummer 46010101 does not lie in kommunenummer 0301/],
      [4, /søknadsfrist 2024-04-01 is before kunngjøringsdato 2024-05-01/],
      [5, /^schema no-land-allocation: \(record\) must have property koordinatsystem when property posisjon is present/],
      [6, /^posisjon: Point lies outside Norway/],
      [7, /^schema no-land-allocation: \/kommunenummer must match pattern/],
      [8, /^duplicate key allocation_id=0301-2024-017 \(first at position 1\)/],
    ];
    expect(rejects.map((r) => r.position)).toEqual(expected.map(([p]) => p));
    expected.forEach(([, reason], i) => expect(rejects[i].reason).toMatch(reason));
  });
});
