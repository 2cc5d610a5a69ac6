import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seArea } from '../../../../sources/se/area/adapter.js';
import { GeoPackageWriter } from '../../../../sources/formats/geopackage-writer.js';
import { REAL_DATA_DIR } from '../../../support/real-data.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { parseAll, rowObject } from '../parse-all.js';
import { writeTarBundle } from '../tar-bundle.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/se/area');
const KOMMUNER = path.join(REAL_DATA_DIR, 'se-kommuner-3006.gpkg');

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'se-area-'));
  bundle = await writeTarBundle(path.join(dir, 'se_omraden_0000_sverige.tar'), [
    { name: 'kommuner/se-kommuner-3006.gpkg', content: await readFile(KOMMUNER) },
    { name: 'postnummer.csv', content: await readFile(path.join(FIXTURES, 'postnummer.csv')) },
    { name: 'markanvisningar.jsonl', content: await readFile(path.join(FIXTURES, 'markanvisningar.jsonl')) },
  ]);
});

describe('se-area parsers', () => {
  it('reads all 290 real municipality boundaries from the GeoPackage, in EPSG:4326', async () => {
    const { rows, rejects } = await parseAll(seArea, KOMMUNER);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(290);
    const stockholm = rowObject(seArea, rows.find((r) => r.values[1] === '0180')!.values);
    expect(stockholm).toMatchObject({ record_kind: 'MUNICIPALITY', municipality_code: '0180', name: 'Stockholm' });
    expect(String(stockholm.geom)).toMatch(/^SRID=4326;MULTIPOLYGON\(\(\(1[78]\.\d+ 59\.\d+/);
    // Stockholm covers about 188 km² of land (SCB); the simplified boundary measures 176 km² in SWEREF 99 TM.
    expect(stockholm.area_m2).toBeGreaterThan(170e6);
    expect(stockholm.area_m2).toBeLessThan(190e6);
    expect(rowObject(seArea, rows.find((r) => r.values[1] === '0114')!.values).name).toBe('Upplands Väsby');
  });

  it('fails a file that is not a GeoPackage with a clear reason', async () => {
    const fake = path.join(dir, 'kommun.gpkg');
    await writeFile(fake, 'kommunkod;namn\n0180;Stockholm\n');
    await expect(parseAll(seArea, fake)).rejects.toThrow(/kommun\.gpkg is not a GeoPackage: it is not an SQLite database file/);
  });

  it('fails a boundary layer in the wrong CRS, and rejects a municipality without a code or geometry', async () => {
    const layer = (srsId: number) => ({ table: 'kommun', geometryColumn: 'geom', geometryType: 'MULTIPOLYGON', srsId, columns: [{ name: 'kommunkod', type: 'TEXT' as const }, { name: 'kommunnamn', type: 'TEXT' as const }] });
    const square = (x: number, y: number, size: number) => ({ type: 'MultiPolygon' as const, polygons: [[[x, y, x + size, y, x + size, y + size, x, y + size, x, y]]] });
    const wgs84 = path.join(dir, 'kommun-4326.gpkg');
    const wrongCrs = GeoPackageWriter.create(wgs84, layer(4326));
    wrongCrs.add(['0180', 'Stockholm'], square(18.0, 59.3, 0.1));
    wrongCrs.close();
    await expect(parseAll(seArea, wgs84)).rejects.toThrow(/layer "kommun" is in EPSG:4326, expected EPSG:3006/);

    const sweref = path.join(dir, 'kommun-3006.gpkg');
    const writer = GeoPackageWriter.create(sweref, layer(3006));
    writer.add(['0180', 'Stockholm'], square(670000, 6575000, 1000));
    writer.add(['180', 'Kort kod'], square(680000, 6575000, 1000));
    writer.add(['0181', 'Utan geometri'], null);
    writer.close();
    const { rows, rejects } = await parseAll(seArea, sweref);
    expect(rows.map((r) => rowObject(seArea, r.values))).toEqual([expect.objectContaining({ record_key: '0180', name: 'Stockholm', area_m2: 1_000_000 })]);
    expect(rejects.map((r) => r.reason.replace(/^\S+ line \d+: /, ''))).toEqual(['kommunkod "180" is not a four-digit kommunkod', 'no geometry (NULL)']);
  });

  it('reads postal codes and land allocations, rejecting bad rows with reasons', async () => {
    const postal = await parseAll(seArea, path.join(FIXTURES, 'postnummer.csv'));
    expect(postal.rows.map((r) => rowObject(seArea, r.values)).map((r) => [r.record_key, r.name, r.municipality_code])).toEqual([
      ['11120', 'STOCKHOLM', '0180'], ['11122', 'STOCKHOLM', '0180'], ['90326', 'UMEÅ', '2480'], ['19430', 'UPPLANDS VÄSBY', '0114'],
    ]);
    expect(postal.rejects.map((r) => r.reason.replace(/^\S+ line \d+: /, ''))).toEqual([
      'postnummer "1234" is not a five-digit postal code', 'kommunkod "380" is not four digits', 'postort is empty',
    ]);
    const allocations = await parseAll(seArea, path.join(FIXTURES, 'markanvisningar.jsonl'));
    expect(rowObject(seArea, allocations.rows[0].values)).toMatchObject({
      record_kind: 'LAND_ALLOCATION', record_key: '0180-SBK-2026-0113', name: 'Bostäder vid Lövholmen, etapp 2', status: 'ANNOUNCED', price_amount: 48000000,
      price_currency: 'SEK', postal_code: '11743', announced_date: '2026-09-01', deadline_date: '2026-12-15', geojson_srid: 4326, source_ref: 'SBK-2026-0113',
    });
    expect(rowObject(seArea, allocations.rows[1].values)).toMatchObject({ status: 'ALLOCATED', geojson_srid: 3006 });
    expect(allocations.rejects.map((r) => r.reason.replace(/^\S+ line \d+: /, ''))).toEqual([
      expect.stringMatching(/^geometri point lies outside Sweden in EPSG:4326 .*wrong koordinatsystem or axis order/),
      expect.stringMatching(/^schema se-land-allocation: \/status must be equal to one of the allowed values/),
      expect.stringMatching(/^schema se-land-allocation: .*must have property koordinatsystem when property geometri is present/),
      'geometri polygon ring 0 is not closed',
      'sistaAnmalningsdag 2026-08-01 is before publicerad 2026-09-01',
    ]);
  });
});

describe('se-area backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '0.5' });
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  const digest = async () =>
    (await pipeline.pool.query(
      `SELECT (SELECT md5(string_agg(m::text, '|' ORDER BY code)) FROM municipality m WHERE country = 'SE') ||
              (SELECT md5(string_agg(a::text, '|' ORDER BY area_code)) FROM area a WHERE country = 'SE') ||
              (SELECT md5(string_agg(l::text, '|' ORDER BY allocation_id)) FROM land_allocation l WHERE country = 'SE') AS d`,
    )).rows[0].d;

  it('publishes the 290 municipalities with boundaries, postal codes and land allocations', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-area', input: bundle });
    expect(sourceOf(summary, 'se-area')).toMatchObject({ outcome: 'published', inserted: 290 + 4 + 3, updated: 0, deleted: 0 });
    // Sergels torg (18.0649 E, 59.3326 N) lies in Stockholm and in no other municipality; Norway's rows are untouched.
    const covering = await pipeline.pool.query(
      `SELECT code, name FROM municipality WHERE country = 'SE' AND ST_Covers(geom, ST_SetSRID(ST_MakePoint(18.0649, 59.3326), 4326))`,
    );
    expect(covering.rows).toEqual([{ code: '0180', name: 'Stockholm' }]);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM municipality WHERE country = 'NO'`)).rows[0].n).toBeGreaterThan(300);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM municipality WHERE country = 'SE' AND NOT ST_IsValid(geom)`)).rows[0].n).toBe(0);
    const allocation = (await pipeline.pool.query(
      `SELECT allocation_id, municipality_code, status, ST_GeometryType(geom) AS type, round(ST_X(ST_Centroid(geom))::numeric, 3)::float AS lon, round(ST_Y(ST_Centroid(geom))::numeric, 3)::float AS lat
       FROM land_allocation WHERE country = 'SE' ORDER BY allocation_id`,
    )).rows;
    expect(allocation).toEqual([
      { allocation_id: '0180-SBK-2026-0113', municipality_code: '0180', status: 'ANNOUNCED', type: 'ST_Polygon', lon: 18.017, lat: 59.31 },
      expect.objectContaining({ allocation_id: '2480-MEX-2025-44', municipality_code: '2480', status: 'ALLOCATED', type: 'ST_Point' }),
      { allocation_id: '2480-MEX-2025-45', municipality_code: '2480', status: 'PLANNED', type: null, lon: null, lat: null },
    ]);
    // The SWEREF 99 TM point was moved to longitude/latitude inside Umeå.
    const umea = await pipeline.pool.query(
      `SELECT m.code FROM land_allocation l JOIN municipality m ON m.country = 'SE' AND ST_Covers(m.geom, l.geom) WHERE l.allocation_id = '2480-MEX-2025-44'`,
    );
    expect(umea.rows).toEqual([{ code: '2480' }]);
  });

  it('changes nothing on the same input again, forced or not', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-area', input: bundle });
    expect(sourceOf(again, 'se-area')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-area', input: bundle, force: true });
    expect(sourceOf(forced, 'se-area')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toBe(before);
  });
});
