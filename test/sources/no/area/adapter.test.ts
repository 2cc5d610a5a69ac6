import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline as streamPipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_DATA_DIR } from '../../../support/real-data.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';

const REAL_KOMMUNER = path.join(REAL_DATA_DIR, 'no-kommuner-2024-S.geojson');
const FIXTURES = path.join(__dirname, '../../../fixtures/no/area');

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

async function municipalityDigest(): Promise<string> {
  const r = await pipeline.pool.query(`SELECT count(*) AS n, md5(string_agg(t::text, '|' ORDER BY t.code)) AS md5 FROM municipality t`);
  return `${r.rows[0].n}:${r.rows[0].md5}`;
}

describe('no-area: the real 2024 municipality boundaries', () => {
  it('loads all 357 municipalities with their boundaries, names from the file', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-area', input: REAL_KOMMUNER });
    expect(summary.outcome).toBe('succeeded');
    // The foundation seeded the 357 names without boundaries: every one is updated, none added or removed.
    // 28 of the simplified boundaries self-intersect: repaired with ST_MakeValid, each logged.
    expect(sourceOf(summary, 'no-area')).toMatchObject({ outcome: 'published', rowsRead: 357, rowsStaged: 357, rowsRejected: 0, rowsRepaired: 28, inserted: 0, updated: 357, deleted: 0 });
    const repairs = (await pipeline.pool.query(`SELECT disposition, reason FROM source_reject WHERE run_id = $1`, [summary.runId])).rows;
    expect(repairs).toHaveLength(28);
    for (const repair of repairs) expect(repair).toMatchObject({ disposition: 'repaired', reason: expect.stringMatching(/^invalid polygon: .*repaired with ST_MakeValid/) });

    const totals = (await pipeline.pool.query(
      `SELECT count(*)::int AS n, count(geom)::int AS with_geom, bool_and(ST_IsValid(geom)) AS valid, bool_and(ST_SRID(geom) = 4326) AS wgs84
       FROM municipality WHERE country = 'NO'`,
    )).rows[0];
    expect(totals).toEqual({ n: 357, with_geom: 357, valid: true, wgs84: true });
    expect((await pipeline.pool.query(`SELECT name FROM municipality WHERE code = '5636'`)).rows[0].name).toBe('Unjárga - Nesseby');

    // Oslo is 454 km² of land and water; the simplified, coast-clipped boundary is close to that.
    const oslo = (await pipeline.pool.query(`SELECT area_m2 FROM municipality WHERE code = '0301'`)).rows[0].area_m2;
    expect(oslo / 1e6).toBeGreaterThan(400);
    expect(oslo / 1e6).toBeLessThan(500);

    // Points resolve to the municipality covering them: Oslo S, Bryggen in Bergen, Nidarosdomen.
    const at = async (lon: number, lat: number) =>
      (await pipeline.pool.query(`SELECT code FROM municipality WHERE ST_Covers(geom, ST_SetSRID(ST_MakePoint($1, $2), 4326))`, [lon, lat])).rows.map((r) => r.code);
    expect(await at(10.7522, 59.9111)).toEqual(['0301']);
    expect(await at(5.3242, 60.3975)).toEqual(['4601']);
    expect(await at(10.3969, 63.4269)).toEqual(['5001']);
  });

  it('changes nothing when the same file comes again, unchanged or forced', async () => {
    const before = await municipalityDigest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-area', input: REAL_KOMMUNER });
    expect(sourceOf(again, 'no-area')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-area', input: REAL_KOMMUNER, force: true });
    expect(sourceOf(forced, 'no-area')).toMatchObject({ outcome: 'published', rowsRead: 357, inserted: 0, updated: 0, deleted: 0 });
    expect(await municipalityDigest()).toBe(before);
  });

  it('reads the same boundaries from a zip, as Geonorge ships them, and changes nothing', async () => {
    const before = await municipalityDigest();
    const zip = path.join(pipeline.dataDir, 'Basisdata_0000_Norge_4258_Kommuner_GeoJSON.zip');
    const archive = new yazl.ZipFile();
    archive.addEmptyDirectory('Basisdata_0000_Norge_4258_Kommuner_GeoJSON');
    archive.addFile(REAL_KOMMUNER, 'Basisdata_0000_Norge_4258_Kommuner_GeoJSON/Kommuner.geojson');
    archive.end();
    await streamPipeline(archive.outputStream, createWriteStream(zip));
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-area', input: zip });
    expect(sourceOf(summary, 'no-area')).toMatchObject({ outcome: 'published', rowsRead: 357, rowsStaged: 357, inserted: 0, updated: 0, deleted: 0 });
    expect(await municipalityDigest()).toBe(before);
  });

  it.each([
    ['not-a-collection.geojson', /is a GeoJSON Feature, not a FeatureCollection/],
    ['truncated.geojson', /is not valid JSON \(truncated or corrupt\?\)/],
    ['unknown-crs.geojson', /EPSG:3857 is not a supported coordinate reference system/],
  ])('fails %s as a whole with a clear reason and leaves the municipalities as they were', async (file, reason) => {
    const before = await municipalityDigest();
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-area', input: path.join(FIXTURES, file) });
    expect(sourceOf(summary, 'no-area').outcome).toBe('failed');
    expect(sourceOf(summary, 'no-area').error).toMatch(reason);
    expect(await municipalityDigest()).toBe(before);
  });
});
