import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_CSV_ENTRY, ADDRESS_CSV_NAME, TEIG_GML_ENTRY } from '../../../../sample/generate.js';
import { BUILDING_SAMPLE_FILES } from '../../../../sample/no/building-files.js';
import { parcelsOfPlan } from '../../../../sample/parcels.js';
import { planSample } from '../../../../sample/plan.js';
import { addressCsvPieces } from '../../../../sample/write-address-csv.js';
import { teigGmlPieces } from '../../../../sample/write-teig-gml.js';
import { writeZip } from '../../../../sample/zip-writer.js';
import { noMatrikkelDetail } from '../../../../sources/no/matrikkel-detail/adapter.js';
import type { ParsedRecord } from '../../../../sources/source-adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tablesDigest } from '../../../support/live-snapshot.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/matrikkel-detail');
const OSLO = path.join(FIXTURES, 'oslo.jsonl');
const REJECTS = path.join(FIXTURES, 'rejects.jsonl');

async function readAll(file: string): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  for await (const batch of noMatrikkelDetail.parse(Readable.from([await readFile(file)]), { fileName: path.basename(file) })) records.push(...batch);
  return records;
}

const rowsOf = (records: ParsedRecord[]) => records.filter((r) => r.kind === 'row') as Extract<ParsedRecord, { kind: 'row' }>[];
const rejectsOf = (records: ParsedRecord[]) => records.filter((r) => r.kind === 'reject') as Extract<ParsedRecord, { kind: 'reject' }>[];

describe('matrikkel-detail exchange reader', () => {
  it('stages buildings, sections and units under their keys, mapped to the API values', async () => {
    const records = await readAll(OSLO);
    expect(rejectsOf(records)).toEqual([]);
    const rows = rowsOf(records).map((r) => r.values);
    expect(rows.map((v) => [v[0], v[1], v[2], v[3]])).toEqual([
      ['bygning', '80012345', '0301', '0301-208-327-0-0'],
      ['bruksenhet', '5500001', '0301', '0301-208-327-0-0'],
      ['bygning', '80012346', '0301', '0301-208-330-0-0'],
      ['seksjon', '0301-208-330-0-1', '0301', '0301-208-330-0-1'],
      ['seksjon', '0301-208-330-0-2', '0301', '0301-208-330-0-2'],
      ['seksjon', '0301-208-330-0-3', '0301', '0301-208-330-0-3'],
      ['bruksenhet', '5500011', '0301', '0301-208-330-0-1'],
      ['bruksenhet', '5500012', '0301', '0301-208-330-0-2'],
      ['bruksenhet', '5500013', '0301', '0301-208-330-0-3'],
    ]);
    const house = JSON.parse(rows[0][4] as string);
    expect(house).toMatchObject({
      built_year: 2012, floors: 2, water_supply: 'PUBLIC', sewerage: 'PUBLIC', energy_sources: ['ELECTRICITY', 'HEAT_PUMP'],
      heating_types: ['ELECTRIC', 'UNDERFLOOR'], usage_group: 'RESIDENTIAL', registration_origin: 'ORDINARY_REGISTRATION',
      base_elevation_m: 94.2, highest_point_m: 102.8, height_above_ground_m: 8.6,
    });
    expect(house.floor_details[0]).toEqual({ floor_number: 1, floor_kind: 'BASEMENT', usable_area_m2: 60, room_count: 1, dwelling_unit_count: 0 });
    expect(JSON.parse(rows[3][4] as string)).toEqual({ property_cadastre_id: '0301-208-330-0-0', section_number: '1', share_numerator: 220, share_denominator: 1230, use_type: 'NAERING' });
    expect(JSON.parse(rows[1][4] as string)).toMatchObject({ unit_number: 'H0101', kitchen_access: 'OWN_KITCHEN', ownership_form: 'FREEHOLD', energy_label: 'C', use_type: 'BOLIG' });
  });

  it('rejects every malformed line with its line number and a reason', async () => {
    const records = await readAll(REJECTS);
    const reasons = Object.fromEntries(rejectsOf(records).map((r) => [r.position, r.reason]));
    expect(reasons).toEqual({
      2: expect.stringMatching(/^not valid JSON/),
      3: "schema no-matrikkel-detail: (record) must have required property 'bygningsnummer'",
      4: 'schema no-matrikkel-detail: /vannforsyning must be equal to one of the allowed values',
      5: 'schema no-matrikkel-detail: (record) must NOT have additional properties "farge"',
      6: 'schema no-matrikkel-detail: /objekt must be equal to one of the allowed values',
      7: 'a seksjon needs a seksjonsnummer of 1 or more',
      8: 'sameiebrok 3/2 is more than the whole',
      9: 'floor H01 is listed twice',
      10: expect.stringMatching(/^schema no-matrikkel-detail: \/bruksenhetsnummer must match pattern/),
      12: 'matrikkelenhet is in kommune 4601, the building in 0301',
    });
    for (const reject of rejectsOf(records)) expect(reject.raw).toMatch(/^\{"objekt"/);
    expect(rowsOf(records).map((r) => r.position)).toEqual([1, 11]); // the duplicate of line 1 goes at validation
  });
});

describe('no-matrikkel-detail backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline();
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  const digest = () => tablesDigest(pipeline.pool, ['building_detail', 'building_floor', 'section', 'unit', 'property']);

  it('publishes building details with floors, sections and units', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-matrikkel-detail', input: OSLO });
    expect(sourceOf(summary, 'no-matrikkel-detail')).toMatchObject({ outcome: 'published', rowsRead: 9, rowsStaged: 9, rowsRejected: 0, inserted: 9 });

    const detail = (await pipeline.pool.query(`SELECT * FROM building_detail WHERE country = 'NO' AND building_number = '80012346'`)).rows[0];
    expect(detail).toMatchObject({
      cadastre_id: '0301-208-330-0-0', municipality_code: '0301', built_year: 1998, floors: 4, gross_area_m2: 1450, usable_area_m2: 1230,
      residential_usable_area_m2: 1010, other_usable_area_m2: 220, built_over_area_m2: 380, dwelling_unit_count: 3, has_lift: true,
      water_supply: 'PUBLIC', sewerage: 'PUBLIC', energy_sources: ['ELECTRICITY', 'DISTRICT_HEATING'], heating_types: ['CENTRAL'],
      usage_group: 'RESIDENTIAL', is_cultural_heritage: false, is_sefrak_registered: false, base_elevation_m: null,
    });
    const floors = await pipeline.pool.query(`SELECT floor_kind, floor_number, usable_area_m2, room_count FROM building_floor WHERE building_number = '80012345' ORDER BY floor_kind, floor_number`);
    expect(floors.rows).toEqual([
      { floor_kind: 'BASEMENT', floor_number: 1, usable_area_m2: 60, room_count: 1 },
      { floor_kind: 'MAIN', floor_number: 1, usable_area_m2: 93, room_count: 4 },
      { floor_kind: 'MAIN', floor_number: 2, usable_area_m2: 93, room_count: 3 },
    ]);
    const sections = await pipeline.pool.query(`SELECT cadastre_id, property_cadastre_id, section_number, share_numerator, share_denominator, use_type, municipality_code FROM section ORDER BY cadastre_id`);
    expect(sections.rows[0]).toEqual({
      cadastre_id: '0301-208-330-0-1', property_cadastre_id: '0301-208-330-0-0', section_number: '1', share_numerator: 220, share_denominator: 1230, use_type: 'NAERING', municipality_code: '0301',
    });
    const units = await pipeline.pool.query(`SELECT unit_id, unit_number, building_number, cadastre_id, floor, use_type, address_id FROM unit ORDER BY unit_id`);
    expect(units.rows).toEqual([
      { unit_id: '5500001', unit_number: 'H0101', building_number: '80012345', cadastre_id: '0301-208-327-0-0', floor: 1, use_type: 'BOLIG', address_id: '300000050' },
      { unit_id: '5500011', unit_number: 'H0101', building_number: '80012346', cadastre_id: '0301-208-330-0-1', floor: 1, use_type: 'ANNET_ENN_BOLIG', address_id: '300000060' },
      { unit_id: '5500012', unit_number: 'H0201', building_number: '80012346', cadastre_id: '0301-208-330-0-2', floor: 2, use_type: 'BOLIG', address_id: '300000061' },
      { unit_id: '5500013', unit_number: 'H0301', building_number: '80012346', cadastre_id: '0301-208-330-0-3', floor: 3, use_type: 'BOLIG', address_id: '300000062' },
    ]);
    // Sections are properties of their own even before the cadastre is loaded.
    const properties = await pipeline.pool.query(`SELECT cadastre_id, property_type FROM property WHERE cadastre_id LIKE '0301-208-330-%' ORDER BY cadastre_id`);
    expect(properties.rows).toEqual([1, 2, 3].map((s) => ({ cadastre_id: `0301-208-330-0-${s}`, property_type: 'EIERSEKSJON' })));
  });

  it('changes nothing on the same file again, nor when forced to reload it', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-matrikkel-detail', input: OSLO });
    expect(sourceOf(again, 'no-matrikkel-detail')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-matrikkel-detail', input: OSLO, force: true });
    expect(sourceOf(forced, 'no-matrikkel-detail')).toMatchObject({ outcome: 'published', rowsRead: 9, inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toEqual(before);
  });

  it('quarantines every malformed line with its reason and refuses the file', async () => {
    const before = await digest();
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-matrikkel-detail', input: REJECTS });
    expect(sourceOf(summary, 'no-matrikkel-detail')).toMatchObject({ outcome: 'failed', rowsRead: 12, rowsStaged: 1, rowsRejected: 11 });
    const rejects = await pipeline.pool.query(`SELECT position, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId]);
    expect(rejects.rows.map((r) => r.position)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(rejects.rows.find((r) => r.position === 11).reason).toMatch(/^duplicate key record_kind,record_key=bygning,81000001 \(first at position 1\)/);
    expect(await digest()).toEqual(before);
  });
});

describe('the sample registers through the worker: parcels, buildings and details together', () => {
  let pipeline: TestPipeline;
  const PARCELS = 400;
  beforeAll(async () => {
    pipeline = await startPipeline();
    // The foundation's teig and address files and both building files, as `nordprop sample` writes them.
    const plan = planSample(PARCELS, 'buildings');
    const context = { plan, seed: 'buildings', parcels: PARCELS };
    await writeZip(path.join(pipeline.dataDir, 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip'), [
      { name: TEIG_GML_ENTRY, pieces: () => teigGmlPieces(parcelsOfPlan(plan, { withAddresses: false })) },
    ]);
    await writeZip(path.join(pipeline.dataDir, `${ADDRESS_CSV_NAME}.zip`), [
      { name: `${ADDRESS_CSV_NAME}/` },
      { name: ADDRESS_CSV_ENTRY, pieces: () => addressCsvPieces(parcelsOfPlan(plan), { rows: 0 }) },
    ]);
    for (const file of BUILDING_SAMPLE_FILES) await file.write({ ...context, path: path.join(pipeline.dataDir, file.fileName) });
    for (const [sourceId, file] of [
      ['no-cadastre', 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip'],
      ['no-address', `${ADDRESS_CSV_NAME}.zip`],
      ['no-building', BUILDING_SAMPLE_FILES[0].fileName],
      ['no-matrikkel-detail', BUILDING_SAMPLE_FILES[1].fileName],
    ]) {
      const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: path.join(pipeline.dataDir, file) });
      expect(sourceOf(summary, sourceId)).toMatchObject({ outcome: 'published', rowsRejected: 0 });
    }
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  it('resolves a sectioned property both as the whole property and per section', async () => {
    const sectioned = await pipeline.pool.query(
      `SELECT property_cadastre_id, array_agg(cadastre_id ORDER BY cadastre_id) AS sections FROM section GROUP BY 1 ORDER BY 1`,
    );
    expect(sectioned.rows.length).toBeGreaterThan(3);
    for (const { property_cadastre_id: whole, sections } of sectioned.rows) {
      const resolved = await pipeline.pool.query(`SELECT cadastre_id, property_type FROM property WHERE cadastre_id = ANY($1::text[]) ORDER BY cadastre_id`, [[whole, ...sections]]);
      expect(resolved.rows).toEqual([
        { cadastre_id: whole, property_type: 'GRUNNEIENDOM' },
        ...sections.map((id: string) => ({ cadastre_id: id, property_type: 'EIERSEKSJON' })),
      ]);
      // Each section is one unit in the building on the whole property, and the shares add up to the whole.
      const check = await pipeline.pool.query(
        `SELECT (SELECT count(*)::int FROM unit u WHERE u.cadastre_id = ANY($2::text[])) AS units,
                (SELECT count(DISTINCT b.building_id)::int FROM building b JOIN unit u ON u.building_number = b.building_number WHERE u.cadastre_id = ANY($2::text[]) AND b.cadastre_id = $1) AS buildings,
                (SELECT sum(share_numerator)::int = min(share_denominator) FROM section WHERE property_cadastre_id = $1) AS shares_whole`,
        [whole, sections],
      );
      expect(check.rows[0]).toEqual({ units: sections.length, buildings: 1, shares_whole: true });
    }
  });

  it('places every building inside a teig of the property it stands on, and every unit in a published building', async () => {
    const stats = (
      await pipeline.pool.query(
        `SELECT count(*)::int AS buildings,
                count(*) FILTER (WHERE EXISTS (
                  SELECT 1 FROM parcel p JOIN parcel_property pp ON pp.country = p.country AND pp.parcel_id = p.parcel_id
                  WHERE pp.cadastre_id = b.cadastre_id AND ST_Covers(p.geom, b.location)))::int AS on_their_property,
                (SELECT count(*)::int FROM unit u WHERE NOT EXISTS (SELECT 1 FROM building b2 WHERE b2.building_number = u.building_number)) AS units_without_building,
                (SELECT count(*)::int FROM building_detail d WHERE NOT EXISTS (SELECT 1 FROM building b3 WHERE b3.building_number = d.building_number)) AS details_without_building
         FROM building b`,
      )
    ).rows[0];
    expect(stats.buildings).toBeGreaterThan(PARCELS);
    expect(stats).toMatchObject({ on_their_property: stats.buildings, units_without_building: 0, details_without_building: 0 });
  });

  it('gives each unit an address of its own property, as the building file links them', async () => {
    const mismatches = await pipeline.pool.query(
      `SELECT u.unit_id, u.cadastre_id, a.cadastre_id AS address_cadastre
       FROM unit u JOIN address a ON a.country = u.country AND a.address_id = u.address_id
       WHERE a.cadastre_id <> regexp_replace(u.cadastre_id, '-\\d+$', '-0')`,
    );
    expect(mismatches.rows).toEqual([]);
    const linked = (
      await pipeline.pool.query(
        `SELECT count(*)::int AS units, count(a.address_id)::int AS with_address,
                count(*) FILTER (WHERE EXISTS (SELECT 1 FROM building_unit_link l WHERE l.bruksenhet_id = u.unit_id AND l.address_id IS NOT DISTINCT FROM u.address_id AND l.cadastre_id = u.cadastre_id))::int AS same_in_building_file
         FROM unit u LEFT JOIN address a ON a.country = u.country AND a.address_id = u.address_id`,
      )
    ).rows[0];
    expect(linked.with_address).toBe(linked.units - (await pipeline.pool.query(`SELECT count(*)::int AS n FROM unit WHERE address_id IS NULL`)).rows[0].n);
    expect(linked.same_in_building_file).toBe(linked.units);
  });
});
