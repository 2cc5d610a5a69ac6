import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';

const FILE = path.join(__dirname, '../../../fixtures/no/area/grunnkretser-oslo-25833.geojson');

let pipeline: TestPipeline;

beforeAll(async () => {
  // Most of the fixture's features are malformed on purpose.
  pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '1' });
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('no-grunnkrets backfill of a GeoJSON in EPSG:25833', () => {
  it('publishes the good grunnkretser, repairs the self-intersecting one, rejects the rest with reasons', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-grunnkrets', input: FILE });
    expect(sourceOf(summary, 'no-grunnkrets')).toMatchObject({ outcome: 'published', rowsRead: 11, rowsStaged: 3, rowsRejected: 8, inserted: 3 });

    const areas = (await pipeline.pool.query(
      `SELECT area_kind, area_code, name, municipality_code, round(area_m2) AS area_m2, ST_IsValid(geom) AS valid FROM area ORDER BY area_code`,
    )).rows;
    expect(areas).toEqual([
      { area_kind: 'GRUNNKRETS', area_code: '03010101', name: 'Sentrum nord', municipality_code: '0301', area_m2: 250000, valid: true },
      { area_kind: 'GRUNNKRETS', area_code: '03010102', name: 'Sentrum sør', municipality_code: '0301', area_m2: 250000, valid: true },
      // The bow tie's two triangles, measured after the repair.
      { area_kind: 'GRUNNKRETS', area_code: '03010103', name: 'Sløyfa', municipality_code: '0301', area_m2: expect.closeTo(125000, -3), valid: true },
    ]);
    // A point in EPSG:25833 (262250 E, 6649250 N) lies in Sentrum nord.
    const covering = await pipeline.pool.query(
      `SELECT area_code FROM area WHERE ST_Covers(geom, ST_Transform(ST_SetSRID(ST_MakePoint(262250, 6649250), 25833), 4326))`,
    );
    expect(covering.rows).toEqual([{ area_code: '03010101' }]);

    const rejects = (await pipeline.pool.query(
      `SELECT position::int, disposition, reason FROM source_reject WHERE run_id = $1 ORDER BY position, disposition`,
      [summary.runId],
    )).rows;
    const expected: [number, string, RegExp][] = [
      [3, 'repaired', /^invalid polygon: Self-intersection.*repaired with ST_MakeValid/],
      [4, 'rejected', /grunnkretsnummer "0301010" is not 8 digits/],
      [5, 'rejected', /grunnkretsnummer 03010105 does not lie in kommunenummer 4601/],
      [6, 'rejected', /polygon 0 ring 0 is not closed/],
      [7, 'rejected', /polygon 0 ring 0 has 3 positions, a closed ring needs at least 4/],
      [8, 'rejected', /geometry type "Point" is not a Polygon or MultiPolygon/],
      [9, 'rejected', /lies outside Norway .*wrong CRS or axis order\?/],
      [10, 'rejected', /feature 10 is not a GeoJSON Feature object/],
      [11, 'rejected', /^duplicate key area_code=03010101 \(first at position 1\)/],
    ];
    expect(rejects.map((r) => [r.position, r.disposition])).toEqual(expected.map(([p, d]) => [p, d]));
    expected.forEach(([, , reason], i) => expect(rejects[i].reason).toMatch(reason));
  });

  it('changes nothing on a forced reload of the same file', async () => {
    const before = (await pipeline.pool.query(`SELECT md5(string_agg(t::text, '|' ORDER BY area_code)) AS m FROM area t`)).rows[0].m;
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-grunnkrets', input: FILE, force: true });
    expect(sourceOf(forced, 'no-grunnkrets')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect((await pipeline.pool.query(`SELECT md5(string_agg(t::text, '|' ORDER BY area_code)) AS m FROM area t`)).rows[0].m).toBe(before);
  });
});
