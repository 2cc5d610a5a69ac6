import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputFormatError } from '../../../../sources/formats/input-error.js';
import { BUILDING_STATUS_NAMES, BUILDING_TYPES, buildingStatusOf } from '../../../../sources/no/building/codes.js';
import { noBuilding, readBuildings } from '../../../../sources/no/building/adapter.js';
import type { ParsedRecord } from '../../../../sources/source-adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tablesDigest } from '../../../support/live-snapshot.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/building');
const OSLO = path.join(FIXTURES, 'oslo-25833.gml');
const REJECTS = path.join(FIXTURES, 'rejects.gml');

async function readAll(file: string, chunkSize?: number): Promise<ParsedRecord[]> {
  const bytes = await readFile(file);
  const chunks = chunkSize ? Array.from({ length: Math.ceil(bytes.length / chunkSize) }, (_, i) => bytes.subarray(i * chunkSize, (i + 1) * chunkSize)) : [bytes];
  const records: ParsedRecord[] = [];
  for await (const batch of readBuildings(Readable.from(chunks))) records.push(...batch);
  return records;
}

const column = (name: string) => noBuilding.stagingColumns.findIndex((c) => c.name === name);
const rowsOf = (records: ParsedRecord[]) => records.filter((r) => r.kind === 'row') as Extract<ParsedRecord, { kind: 'row' }>[];
const rejectsOf = (records: ParsedRecord[]) => records.filter((r) => r.kind === 'reject') as Extract<ParsedRecord, { kind: 'reject' }>[];

describe('building code lists', () => {
  it('hold the full Matrikkel lists: 127 building types and 19 statuses, each status mapped', () => {
    expect(BUILDING_TYPES.size).toBe(127);
    expect(BUILDING_TYPES.get('111')).toBe('Enebolig');
    expect(BUILDING_TYPES.get('439')).toBe('Annen garasje- og hangarbygning');
    expect(BUILDING_TYPES.get('999')).toBe('Ukjent bygningstype');
    expect(BUILDING_STATUS_NAMES.size).toBe(19);
    expect(['TB', 'FA', 'MB'].map(buildingStatusOf)).toEqual(['IN_USE', 'IN_USE', 'IN_USE']);
    expect(['RA', 'IG'].map(buildingStatusOf)).toEqual(['UNDER_CONSTRUCTION', 'UNDER_CONSTRUCTION']);
    const others = [...BUILDING_STATUS_NAMES.keys()].filter((code) => !['TB', 'FA', 'MB', 'RA', 'IG'].includes(code)).map(buildingStatusOf);
    expect(others.every((status) => status && status !== 'IN_USE' && status !== 'UNDER_CONSTRUCTION')).toBe(true);
    expect(new Set(others).size).toBe(14); // a name of its own for every other code
    expect(buildingStatusOf('XX')).toBeUndefined();
  });
});

describe('Matrikkelen Bygning GML reader', () => {
  it('reads building points with type, status, matrikkelenhet, units and status history', async () => {
    const records = await readAll(OSLO);
    expect(rejectsOf(records)).toEqual([]);
    const rows = rowsOf(records);
    expect(rows.map((r) => r.position)).toEqual([1, 2, 3, 4]);
    const [house, block, blank, geographic] = rows.map((r) => Object.fromEntries(noBuilding.stagingColumns.map((c, i) => [c.name, r.values[i]])));
    expect(house).toMatchObject({
      building_id: '80012345', register_id: '290001', municipality_code: '0301', cadastre_id: '0301-208-327-0-0',
      building_type_code: '111', building_type_name: 'Enebolig', status: 'IN_USE', status_code: 'FA', source_srid: 25833,
      has_cultural_heritage: false, is_sefrak_registered: false, source_updated_at: '2023-05-04T11:12:13',
    });
    // cs2cs EPSG:25833 → EPSG:4326 for 262070.35 6649835.12: 59.91712369 N, 10.74300999 E.
    expect(Number(house.lon)).toBeCloseTo(10.74300999, 6);
    expect(Number(house.lat)).toBeCloseTo(59.91712369, 6);
    expect(JSON.parse(house.status_history as string)).toEqual([
      { status: 'UNDER_CONSTRUCTION', status_code: 'RA', changed_date: '2011-03-01', registered_date: '2011-03-09' },
      { status: 'UNDER_CONSTRUCTION', status_code: 'IG', changed_date: '2011-06-15', registered_date: '2011-06-20' },
      { status: 'IN_USE', status_code: 'FA', changed_date: '2012-08-30', registered_date: '2012-09-04' },
    ]);
    expect(JSON.parse(house.unit_links as string)).toEqual([{ bruksenhet_id: '5500001', address_id: '300000050', matrikkelenhet_id: '70001', cadastre_id: '0301-208-327-0-0' }]);
    // A block of sections stands on the property the sections divide; its units link to the sections.
    expect(block).toMatchObject({ cadastre_id: '0301-208-330-0-0', status: 'UNDER_CONSTRUCTION', status_code: 'IG', building_type_code: '142' });
    expect(JSON.parse(block.unit_links as string).map((l: { cadastre_id: string }) => l.cadastre_id)).toEqual(['0301-208-330-0-1', '0301-208-330-0-2']);
    // A space as bygningstype is "not set"; MT keeps a name of its own.
    expect(blank).toMatchObject({ building_type_code: null, building_type_name: null, status: 'NOTIFIED_MEASURE_REGISTERED', status_code: 'MT', has_cultural_heritage: null });
    // EPSG:4258 in URN form is latitude first; a three-digit kommunenummer gets its zero back.
    expect(geographic).toMatchObject({ municipality_code: '0301', lon: '10.7461000', lat: '59.9127000', source_srid: 4258, cadastre_id: null, has_cultural_heritage: true });
  });

  it('reads a WFS extract without prefixes whose CRS is stated only by the collection\'s envelope', async () => {
    const records = await readAll(path.join(FIXTURES, 'wfs-25832.gml'));
    expect(rejectsOf(records)).toEqual([]);
    const [office] = rowsOf(records).map((r) => Object.fromEntries(noBuilding.stagingColumns.map((c, i) => [c.name, r.values[i]])));
    expect(office).toMatchObject({ building_id: '300100200', building_type_code: '311', status: 'IN_USE', source_srid: 25832 });
    // cs2cs EPSG:25832 → EPSG:4326 for 597613.40 6642917.80: 59.91218117 N, 10.74555446 E.
    expect(Number(office.lon)).toBeCloseTo(10.74555446, 6);
    expect(Number(office.lat)).toBeCloseTo(59.91218117, 6);
  });

  it('gives each building only its own CRS and text: nothing carries over from the element read before at the same depth', async () => {
    // The reader reuses its per-depth element state (the parse's hot path); a CRS or text left
    // from the first building's Point must not reach the second, whose Point states none.
    const building = (number: string, point: string, extra = '') =>
      `<Bygning><bygningsnummer>${number}</bygningsnummer><bygningstype>111</bygningstype><bygningsstatus>TB</bygningsstatus>` +
      `<kommunenummer>0301</kommunenummer><representasjonspunkt>${point}</representasjonspunkt>${extra}</Bygning>`;
    const gml =
      '<?xml version="1.0" encoding="UTF-8"?><FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2">' +
      `<member>${building('1', '<gml:Point srsName="urn:ogc:def:crs:EPSG::25833"><gml:pos>258857.08 6661879.67</gml:pos></gml:Point>', '<harKulturminne>true</harKulturminne>')}</member>` +
      `<member>${building('2', '<gml:Point><gml:pos>258857.08 6661879.67</gml:pos></gml:Point>', '<harKulturminne><x/>false</harKulturminne>')}</member>` +
      '</FeatureCollection>';
    const records: ParsedRecord[] = [];
    for await (const batch of readBuildings(Readable.from([Buffer.from(gml)]))) records.push(...batch);
    expect(rowsOf(records).map((r) => [r.values[column('building_id')], r.values[column('has_cultural_heritage')]])).toEqual([['1', true]]);
    expect(rejectsOf(records).map((r) => [r.position, r.reason])).toEqual([[2, 'unknown CRS: "null" does not name an EPSG coordinate reference system']]);
  });

  it('reads the same records however the file is chunked', async () => {
    const whole = await readAll(OSLO);
    expect(await readAll(OSLO, 97)).toEqual(whole);
    expect(await readAll(REJECTS, 13)).toEqual(await readAll(REJECTS));
  });

  it('rejects each bad building with its position, a reason and its source text', async () => {
    const records = await readAll(REJECTS);
    const reasons = Object.fromEntries(rejectsOf(records).map((r) => [r.position, r.reason]));
    expect(reasons).toEqual({
      2: 'missing bygningsnummer',
      3: 'unknown bygningstype code "998"',
      4: 'unknown bygningsstatus code "XX"',
      5: 'bad coordinates "262070.35 north": expected two numbers',
      6: 'unknown CRS: EPSG:9999 (srsName "urn:ogc:def:crs:EPSG::9999") is not a supported coordinate reference system',
      7: expect.stringMatching(/^bad coordinates "900000 100000" in EPSG:25833: outside Norway/),
      8: 'no representasjonspunkt (gml:Point/gml:pos)',
      9: 'matrikkelenhet 1: gardsnummer 0 is not a registered unit',
      10: 'status history 1: unknown bygningsstatus "ZZ"',
      12: 'kommunenummer "03a1" is not four digits',
      13: 'bruksenhet 2: bruksenhetId 77 is listed twice',
    });
    for (const reject of rejectsOf(records)) {
      expect(reject.raw).toMatch(new RegExp(`^<app:Bygning gml:id="bygning\\.${reject.position}">[\\s\\S]*</app:Bygning>$`));
    }
    // Features 1 and 11 parse; their shared bygningsnummer is quarantined at validation (see below).
    expect(rowsOf(records).map((r) => [r.position, r.values[column('building_id')]])).toEqual([[1, '81000001'], [11, '81000001']]);
  });

  it('fails a truncated or non-UTF-8 file with a clear InputFormatError', async () => {
    await expect(readAll(path.join(FIXTURES, 'truncated.gml'))).rejects.toThrow(InputFormatError);
    await expect(readAll(path.join(FIXTURES, 'truncated.gml'))).rejects.toThrow(/Malformed or truncated building GML at line \d+/);
    const latin1 = Buffer.from((await readFile(OSLO, 'utf8')).replace('<app:kommunenavn>Oslo', '<app:kommunenavn>Bærum'), 'latin1');
    const records: ParsedRecord[] = [];
    await expect(async () => {
      for await (const batch of readBuildings(Readable.from([latin1]))) records.push(...batch);
    }).rejects.toThrow(/not valid UTF-8/);
  });
});

describe('no-building backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline();
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  const digest = () => tablesDigest(pipeline.pool, ['building', 'building_status_history', 'building_unit_link']);

  it('publishes buildings with WGS84 points, status history and unit links', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-building', input: OSLO });
    expect(summary.outcome).toBe('succeeded');
    expect(sourceOf(summary, 'no-building')).toMatchObject({ outcome: 'published', rowsRead: 4, rowsStaged: 4, rowsRejected: 0, inserted: 4, updated: 0, deleted: 0 });

    const house = (
      await pipeline.pool.query(
        `SELECT building_number, cadastre_id, municipality_code, building_type_code, building_type_name, status, status_code, register_id,
                source_srid, ST_X(location) AS lon, ST_Y(location) AS lat, ST_Equals(geom, location) AS point_geom,
                ST_Distance(location::geography, ST_Transform(ST_SetSRID(ST_MakePoint(262070.35, 6649835.12), 25833), 4326)::geography) AS off_by_m
         FROM building WHERE country = 'NO' AND building_id = '80012345'`,
      )
    ).rows[0];
    expect(house).toMatchObject({
      building_number: '80012345', cadastre_id: '0301-208-327-0-0', municipality_code: '0301', building_type_code: '111',
      building_type_name: 'Enebolig', status: 'IN_USE', status_code: 'FA', register_id: '290001', source_srid: 25833, point_geom: true,
    });
    expect(house.off_by_m).toBeLessThan(0.01); // PostGIS's own reprojection of the source point agrees to the centimetre

    const history = await pipeline.pool.query(
      `SELECT seq, status, status_code, changed_date::text, registered_date::text FROM building_status_history WHERE building_id = '80012345' ORDER BY seq`,
    );
    expect(history.rows).toEqual([
      { seq: 1, status: 'UNDER_CONSTRUCTION', status_code: 'RA', changed_date: '2011-03-01', registered_date: '2011-03-09' },
      { seq: 2, status: 'UNDER_CONSTRUCTION', status_code: 'IG', changed_date: '2011-06-15', registered_date: '2011-06-20' },
      { seq: 3, status: 'IN_USE', status_code: 'FA', changed_date: '2012-08-30', registered_date: '2012-09-04' },
    ]);
    const links = await pipeline.pool.query(
      `SELECT bruksenhet_id, address_id, matrikkelenhet_id, cadastre_id FROM building_unit_link WHERE building_id = '80012346' ORDER BY bruksenhet_id`,
    );
    expect(links.rows).toEqual([
      { bruksenhet_id: '5500011', address_id: '300000060', matrikkelenhet_id: '70011', cadastre_id: '0301-208-330-0-1' },
      { bruksenhet_id: '5500012', address_id: '300000060', matrikkelenhet_id: '70012', cadastre_id: '0301-208-330-0-2' },
    ]);
    const statuses = await pipeline.pool.query(`SELECT building_id, status FROM building ORDER BY building_id`);
    expect(statuses.rows.map((r) => r.status)).toEqual(['IN_USE', 'UNDER_CONSTRUCTION', 'NOTIFIED_MEASURE_REGISTERED', 'IN_USE']);
  });

  it('changes nothing on the same file again, nor when forced to reload it', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-building', input: OSLO });
    expect(sourceOf(again, 'no-building')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-building', input: OSLO, force: true });
    expect(sourceOf(forced, 'no-building')).toMatchObject({ outcome: 'published', rowsRead: 4, inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toEqual(before);
  });

  it('applies a status change and a demolition: the history follows, the removed building goes with its rows', async () => {
    const gml = await readFile(OSLO, 'utf8');
    // Building 80012346 is finished (IG -> FA, a history entry added); building 80012347 leaves the register.
    const changed = gml
      .replace('<app:bygningsstatus>IG</app:bygningsstatus>\n', '<app:bygningsstatus>FA</app:bygningsstatus>\n')
      .replace(
        '<app:bygningsstatus>IG</app:bygningsstatus><app:dato>2023-09-12</app:dato><app:registrertDato>2023-09-14</app:registrertDato></app:BygningsstatusHistorikk></app:bygningsstatusHistorikk>',
        '<app:bygningsstatus>IG</app:bygningsstatus><app:dato>2023-09-12</app:dato><app:registrertDato>2023-09-14</app:registrertDato></app:BygningsstatusHistorikk></app:bygningsstatusHistorikk>\n  <app:bygningsstatusHistorikk><app:BygningsstatusHistorikk><app:bygningsstatus>FA</app:bygningsstatus><app:dato>2025-10-01</app:dato><app:registrertDato>2025-10-02</app:registrertDato></app:BygningsstatusHistorikk></app:bygningsstatusHistorikk>',
      )
      .replace(/<gml:featureMember><app:Bygning gml:id="bygning\.290003">[\s\S]*?<\/gml:featureMember>\n/, '');
    expect(changed).not.toContain('80012347');
    const file = path.join(pipeline.dataDir, 'oslo-changed.gml');
    await writeFile(file, changed);
    // One of four buildings gone is a 25% drop: refused unless forced.
    const refused = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-building', input: file });
    expect(sourceOf(refused, 'no-building').outcome).toBe('failed');
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-building', input: file, force: true });
    expect(sourceOf(summary, 'no-building')).toMatchObject({ outcome: 'published', inserted: 0, updated: 1, deleted: 1 });
    const block = await pipeline.pool.query(`SELECT status, status_code FROM building WHERE building_id = '80012346'`);
    expect(block.rows[0]).toEqual({ status: 'IN_USE', status_code: 'FA' });
    const history = await pipeline.pool.query(`SELECT status_code FROM building_status_history WHERE building_id = '80012346' ORDER BY seq`);
    expect(history.rows.map((r) => r.status_code)).toEqual(['RA', 'IG', 'FA']);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM building WHERE building_id = '80012347'`)).rows[0].n).toBe(0);
    // The unchanged house kept its history untouched.
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM building_status_history WHERE building_id = '80012345'`)).rows[0].n).toBe(3);
  });

  it('quarantines every bad building with its reason, and refuses a file with that many of them', async () => {
    const before = await digest();
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-building', input: REJECTS });
    const run = sourceOf(summary, 'no-building');
    expect(run).toMatchObject({ outcome: 'failed', rowsRead: 13, rowsStaged: 1, rowsRejected: 12 });
    expect(run.error).toMatch(/12 of 13 rows rejected/);
    const rejects = await pipeline.pool.query(`SELECT position, reason FROM source_reject WHERE run_id = $1 AND source_id = 'no-building' ORDER BY position`, [summary.runId]);
    expect(rejects.rows.map((r) => r.position)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(rejects.rows.find((r) => r.position === 11).reason).toMatch(/^duplicate key building_id=81000001 \(first at position 1\)/);
    expect(await digest()).toEqual(before);
  });
});
