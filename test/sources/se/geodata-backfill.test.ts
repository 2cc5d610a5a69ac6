import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline as pipeline_ } from 'node:stream/promises';
import yazl from 'yazl';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GeoPackage } from '../../../sources/formats/geopackage.js';
import { multiPolygonEwkt } from '../../../sources/geo/ewkt.js';
import { transformTo } from '../../../sources/geo/reproject.js';
import { seAddress } from '../../../sources/se/address/adapter.js';
import { seBuilding } from '../../../sources/se/building/adapter.js';
import { PARCEL_PLACE, seCadastre } from '../../../sources/se/cadastre/adapter.js';
import { changedParcels, collectReplacedParcels, coveringCadastreSql, coveringParcelSql, relinkAfterCadastre } from '../../../sources/se/covering-property.js';
import { createStagingSql } from '../../../activities/staging-table.js';
import { typeOfBlock } from '../../../sources/se/cadastre-id.js';
import { lookupCoordinate } from '../../../store/coordinate-lookup.js';
import { NightChannel, planNight } from '../../../sample/night.js';
import { planSwedishSample, propertiesOfSwedishPlan, type SeSampleProperty } from '../../../sample/se/properties.js';
import { writeSeAddressGpkg, writeSeBuildingGpkg, writeSeCadastreGpkg } from '../../../sample/se/write-geopackages.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runBackfill, runRefresh, sourceOf } from '../../support/runs.js';
import { tableDigest, tablesDigest } from '../../support/live-snapshot.js';
import { REAL_SE_MUNICIPALITIES_GPKG } from '../../support/real-data.js';
import { explainEachStatement, type ExplainedStatement } from '../../support/explained-plans.js';
import { realByggnadGpkg } from './gpkg-support.js';

const COUNT = 400;
const SEED = 'se-geodata';
const toWgs84 = transformTo(3006);
let pipeline: TestPipeline;
let truth: SeSampleProperty[];
let sampleDir: string;
const file = (name: string) => path.join(sampleDir, name);

/** Every Swedish live row of the tables these sources write. */
const swedishDigest = (pool: pg.Pool) => tablesDigest(pool, ['parcel', 'parcel_property', 'property_register', 'address', 'building'], 'SE');

/** Rows that do not name the property the coordinate lookup resolves at their point (or none where it resolves none). */
const staleLinks = async (db: pg.Pool | pg.PoolClient = pipeline.pool) =>
  (await db.query(
    `SELECT 'address' AS kind, address_id AS id FROM address live WHERE country = 'SE' AND cadastre_id IS DISTINCT FROM ${coveringCadastreSql('live.geom')}
     UNION ALL
     SELECT 'building', building_id FROM building live WHERE country = 'SE' AND cadastre_id IS DISTINCT FROM ${coveringCadastreSql('live.location')}`,
  )).rows;

/** Index scans of the parcel table in the client's transaction so far: one per point a statement looked up in it. */
const parcelProbes = async (client: pg.PoolClient) =>
  Number((await client.query(`SELECT coalesce(sum(idx_scan), 0) AS n FROM pg_stat_xact_user_tables WHERE relname = 'parcel'`)).rows[0].n);

beforeAll(async () => {
  pipeline = await startPipeline();
  sampleDir = path.join(pipeline.dataDir, 'sample');
  await mkdir(sampleDir, { recursive: true });
  const context = { seed: SEED, parcels: COUNT, plan: undefined as never };
  writeSeCadastreGpkg({ ...context, path: file(seCadastre.inputFileName) });
  writeSeAddressGpkg({ ...context, path: file(seAddress.inputFileName) });
  writeSeBuildingGpkg({ ...context, path: file(seBuilding.inputFileName) });
  truth = [...propertiesOfSwedishPlan(planSwedishSample(COUNT, SEED))];
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('Swedish GeoPackage registers through the worker', () => {
  it('loads the real Lantmäteriet buildings, placed in their municipality by its real boundary', async () => {
    // The municipality boundaries as the area source publishes them (from the real SCB GeoPackage).
    const gpkg = GeoPackage.open(REAL_SE_MUNICIPALITIES_GPKG);
    try {
      const layer = gpkg.layer('sveriges_kommuner_sf_simple', 3006);
      for (const f of gpkg.features(layer, ['municipality_code', 'municipality_name'])) {
        const polygons = (f.geometry as { polygons: number[][][] }).polygons;
        await pipeline.pool.query(
          `INSERT INTO municipality (country, code, name, geom) VALUES ('SE', $1, $2, ST_GeomFromEWKT($3))
           ON CONFLICT (country, code) DO UPDATE SET geom = excluded.geom`,
          [f.attributes.municipality_code, f.attributes.municipality_name, multiPolygonEwkt(polygons, toWgs84)],
        );
      }
    } finally {
      gpkg.close();
    }
    const real = realByggnadGpkg(path.join(pipeline.dataDir, 'byggnad_real_sample.gpkg'));
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-building', input: real });
    expect(sourceOf(summary, 'se-building')).toMatchObject({ outcome: 'published', rowsRead: 14, rowsStaged: 14, rowsRejected: 0, inserted: 14 });
    const row = (await pipeline.pool.query(
      `SELECT municipality_code, building_type_code, building_type_name, cadastre_id, ST_Y(location) AS lat, ST_X(location) AS lon, footprint_m2
       FROM building WHERE country = 'SE' AND building_id = '78128735-9eb5-4712-a158-cb7bb0613779'`,
    )).rows[0];
    // 657472 E, 6582305 N: Stockholm's suburbs west of the city (Ekerö / Järfälla / Stockholm border area).
    expect(row).toMatchObject({ building_type_code: '2065', building_type_name: 'Ekonomibyggnad', cadastre_id: null });
    expect(row.municipality_code).toMatch(/^01\d\d$/);
    expect(row.lat).toBeCloseTo(59.35, 1);
    expect(row.lon).toBeCloseTo(17.77, 1);
  });

  it('publishes every area as a parcel of its property, and the properties to property_register', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-cadastre', input: file(seCadastre.inputFileName) });
    const areas = truth.reduce((n, p) => n + p.areas.length, 0);
    expect(sourceOf(summary, 'se-cadastre')).toMatchObject({ outcome: 'published', rowsRead: areas, rowsStaged: areas, rowsRejected: 0, rowsRepaired: 0 });
    const registered = await pipeline.pool.query(`SELECT cadastre_id, register_ref, designation, property_type, area_m2, plot_count, municipality_code FROM property_register WHERE country = 'SE'`);
    expect(registered.rowCount).toBe(truth.length);
    const byId = new Map(registered.rows.map((r) => [r.cadastre_id, r]));
    for (const p of truth) {
      expect(byId.get(p.cadastreId)).toMatchObject({
        register_ref: p.registerenhetsreferens, designation: p.designation, municipality_code: p.kommunkod,
        property_type: typeOfBlock(p.block), plot_count: p.areas.length,
      });
      expect(Math.abs(byId.get(p.cadastreId).area_m2 - p.areas.reduce((s, a) => s + a.area, 0))).toBeLessThan(0.05);
    }
    const view = await pipeline.pool.query(`SELECT count(*)::int AS n FROM property WHERE country = 'SE'`);
    expect(view.rows[0].n).toBe(truth.length);
    // A first load builds the parcels' and links' secondary indexes after inserting: they are back.
    const indexes = await pipeline.pool.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE tablename IN ('parcel', 'parcel_property')`);
    expect(indexes.rows.map((r) => r.name)).toEqual(expect.arrayContaining(['parcel_geom_idx', 'parcel_property_cadastre_idx']));
  });

  it('resolves a coordinate in Sweden to the property covering it, on either of its areas', async () => {
    const twoAreas = truth.find((p) => p.areas.length === 2 && p.addresses.length > 0)!;
    const [east, north] = twoAreas.areas[1].exterior[0];
    const [lon, lat] = toWgs84(east + 2, north + 2);
    const hit = await lookupCoordinate(pipeline.pool, 'SE', lat, lon);
    expect(hit.property).toMatchObject({ cadastreId: twoAreas.cadastreId, plotCount: 2, propertyType: 'FASTIGHET' });
    expect(hit.parcel?.parcelId).toBe(twoAreas.areas[1].objektidentitet);
    const kvarter = truth.find((p) => p.kind === 'kvarter')!;
    const [kLon, kLat] = toWgs84(kvarter.areas[0].exterior[0][0] + 1, kvarter.areas[0].exterior[0][1] + 1);
    expect((await lookupCoordinate(pipeline.pool, 'SE', kLat, kLon)).property?.cadastreId).toBe(kvarter.cadastreId);
  });

  it('publishes addresses, each joined to the property whose parcel covers it', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-address', input: file(seAddress.inputFileName) });
    const addresses = truth.flatMap((p) => p.addresses.map((a) => ({ p, a })));
    expect(sourceOf(summary, 'se-address')).toMatchObject({ outcome: 'published', rowsRead: addresses.length, rowsRejected: 0, inserted: addresses.length });
    const live = new Map((await pipeline.pool.query(`SELECT address_id, cadastre_id, address_text, postal_code, status, municipality_code FROM address WHERE country = 'SE'`)).rows.map((r) => [r.address_id, r]));
    expect(live.size).toBe(addresses.length);
    for (const { p, a } of addresses) {
      expect(live.get(a.objektidentitet)).toMatchObject({
        cadastre_id: p.cadastreId, address_text: `${a.adressomrade} ${a.expectedHouseNumber}`, postal_code: String(a.postnummer).padStart(5, '0'),
        status: a.statusforbelagenhetsadress, municipality_code: p.kommunkod,
      });
    }
    const withAddress = addresses[0];
    const [lon, lat] = toWgs84(...withAddress.a.point);
    const hit = await lookupCoordinate(pipeline.pool, 'SE', lat, lon);
    expect(hit.property?.cadastreId).toBe(withAddress.p.cadastreId);
    expect(hit.property?.addresses.map((x) => x.text)).toContain(`${withAddress.a.adressomrade} ${withAddress.a.expectedHouseNumber}`);
  });

  it('publishes buildings with multipart rows dissolved, on their property', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-building', input: file(seBuilding.inputFileName) });
    const buildings = truth.flatMap((p) => p.buildings.map((b) => ({ p, b })));
    const parts = buildings.reduce((n, { b }) => n + b.parts.length, 0);
    expect(sourceOf(summary, 'se-building')).toMatchObject({ outcome: 'published', rowsRead: parts, rowsStaged: parts, rowsRejected: 0, inserted: buildings.length });
    const live = new Map((await pipeline.pool.query(
      `SELECT building_id, cadastre_id, municipality_code, is_main_building, house_number, purposes, building_type_name, footprint_m2,
              ST_NumGeometries(geom) AS polygons, ST_Covers(geom, location) AS location_inside
       FROM building WHERE country = 'SE' AND municipality_code IN (SELECT DISTINCT municipality_code FROM property_register WHERE country = 'SE')`,
    )).rows.map((r) => [r.building_id, r]));
    expect(live.size).toBe(buildings.length);
    for (const { p, b } of buildings) {
      const row = live.get(b.objektidentitet);
      expect(row).toMatchObject({ cadastre_id: p.cadastreId, municipality_code: p.kommunkod, is_main_building: b.huvudbyggnad === 'Ja', house_number: String(b.husnummer), purposes: b.andamal, building_type_name: b.objekttyp, location_inside: true });
      const area = b.parts.reduce((s, part) => s + Math.abs((part[1][0] - part[0][0]) * (part[2][1] - part[1][1])), 0);
      // One part: the planar area staged from the file. Dissolved parts: re-measured after the
      // round trip through 7-decimal WGS84 (about a centimetre per vertex).
      expect(Math.abs(row.footprint_m2 - area)).toBeLessThan(b.parts.length === 1 ? 0.01 : 0.2);
      if (b.parts.length === 2) {
        const touching = b.parts[0][1][0] === b.parts[1][0][0];
        expect(row.polygons, `multipart ${b.objektidentitet}`).toBe(touching ? 1 : 2);
      }
    }
    expect(buildings.some(({ b }) => b.parts.length === 2)).toBe(true);
  });

  it('re-links addresses and buildings when their property is re-designated, without their own files changing', async () => {
    const renamed = truth.find((p) => p.kind === 'fastighet' && p.areas.length === 1 && p.addresses.length > 0 && p.buildings.length > 0)!;
    const newId = renamed.cadastreId.replace(/_\d+$/, '_900');
    const changed = path.join(pipeline.dataDir, 'changed', seCadastre.inputFileName);
    await mkdir(path.dirname(changed), { recursive: true });
    await copyFile(file(seCadastre.inputFileName), changed);
    const db = new Database(changed);
    db.prepare(`UPDATE registerenhetsomradesyta SET enhet = 900, etikett = block || ':900' WHERE registerenhetsreferens = ?`).run(renamed.registerenhetsreferens);
    db.close();
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-cadastre', input: changed });
    // Its parcel updated; in property_register the old designation deleted, the new inserted.
    expect(sourceOf(summary, 'se-cadastre')).toMatchObject({ outcome: 'published', inserted: 1, updated: 1, deleted: 1 });
    const links = async (table: string, ids: string[], key: string) =>
      (await pipeline.pool.query(`SELECT DISTINCT cadastre_id FROM ${table} WHERE country = 'SE' AND ${key} = ANY($1)`, [ids])).rows.map((r) => r.cadastre_id);
    expect(await links('address', renamed.addresses.map((a) => a.objektidentitet), 'address_id')).toEqual([newId]);
    expect(await links('building', renamed.buildings.map((b) => b.objektidentitet), 'building_id')).toEqual([newId]);
    expect((await pipeline.pool.query(`SELECT cadastre_id FROM property_register WHERE country = 'SE' AND register_ref = $1`, [renamed.registerenhetsreferens])).rows).toEqual([{ cadastre_id: newId }]);

    // And back (forced: the ledger already holds this path's sha256 as loaded).
    const restored = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-cadastre', input: file(seCadastre.inputFileName), force: true });
    expect(sourceOf(restored, 'se-cadastre').outcome).toBe('published');
    expect(await links('address', renamed.addresses.map((a) => a.objektidentitet), 'address_id')).toEqual([renamed.cadastreId]);
  });

  it('re-links the addresses and buildings under a parcel the cadastre removes, though their property keeps its other areas', async () => {
    expect(await staleLinks()).toEqual([]);
    // The area a two-area property's addresses and buildings stand on, its first (sample/se/properties.ts).
    const property = truth.find((p) => p.areas.length === 2 && p.addresses.length > 0 && p.buildings.length > 0)!;
    const removedArea = property.areas[0].objektidentitet;
    const changed = path.join(pipeline.dataDir, 'area-removed', seCadastre.inputFileName);
    await mkdir(path.dirname(changed), { recursive: true });
    await copyFile(file(seCadastre.inputFileName), changed);
    const db = new Database(changed);
    db.prepare(`DELETE FROM registerenhetsomradesyta WHERE objektidentitet = ?`).run(removedArea);
    db.close();
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-cadastre', input: changed });
    expect(sourceOf(summary, 'se-cadastre')).toMatchObject({ outcome: 'published', deleted: 1 });
    // The rows on the removed area lie on no parcel now; the address and building files did not change.
    const links = await pipeline.pool.query(`SELECT DISTINCT cadastre_id FROM address WHERE country = 'SE' AND address_id = ANY($1)`, [property.addresses.map((a) => a.objektidentitet)]);
    expect(links.rows).toEqual([{ cadastre_id: null }]);
    expect(await staleLinks()).toEqual([]);

    const restored = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-cadastre', input: file(seCadastre.inputFileName), force: true });
    expect(sourceOf(restored, 'se-cadastre')).toMatchObject({ outcome: 'published', inserted: 1 });
    expect(await staleLinks()).toEqual([]);
  });

  it('re-links after a cadastre night by reading the rows under the changed parcels, not the whole register', async () => {
    const client = await pipeline.pool.connect();
    try {
      await client.query('BEGIN');
      // The plans a national register gets (nested loops through the indexes, as at 0.05 × national):
      // with its few hundred rows here the planner would read the tables whole whatever the statement.
      for (const method of ['seqscan', 'bitmapscan', 'hashjoin', 'mergejoin']) await client.query(`SET LOCAL enable_${method} = off`);
      // One changed parcel, as a night's publish collects it (covering-property.ts): a built one whose box holds few rows.
      const inBox = (table: string, point: string) => `(SELECT count(*) FROM ${table} r WHERE r.country = 'SE' AND r.${point} && p.geom)`;
      const { cadastre_id: cadastreId, building_id: buildingId, buildings, addresses } = (await client.query(
        `SELECT pp.cadastre_id, b.building_id, ${inBox('building', 'location')} AS buildings, ${inBox('address', 'geom')} AS addresses
         FROM parcel p JOIN parcel_property pp USING (country, parcel_id) JOIN building b ON b.country = 'SE' AND b.cadastre_id = pp.cadastre_id
         WHERE p.country = 'SE' ORDER BY 3 + 4, pp.cadastre_id, b.building_id LIMIT 1`,
      )).rows[0];
      await client.query(`CREATE TEMP TABLE se_changed_parcel ON COMMIT DROP AS SELECT p.geom FROM parcel p JOIN parcel_property pp USING (country, parcel_id) WHERE p.country = 'SE' AND pp.cadastre_id = $1`, [cadastreId]);
      await client.query(`CREATE INDEX ON se_changed_parcel USING gist (geom)`);
      await client.query(`ANALYZE se_changed_parcel`);
      // Its property keeps its areas: none is gone.
      await client.query(`CREATE TEMP TABLE se_emptied_property (cadastre_id text) ON COMMIT DROP`);
      // A link gone stale under it, which the re-link must mend.
      await client.query(`UPDATE building SET cadastre_id = NULL WHERE country = 'SE' AND building_id = $1`, [buildingId]);
      const reads = async () =>
        Object.fromEntries((await client.query(`SELECT relname, seq_tup_read + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_xact_user_tables WHERE relname IN ('building', 'address')`)).rows.map((r) => [r.relname, Number(r.n)]));
      const before = await reads();
      for (const table of ['building', 'address'] as const) {
        const probesBefore = await parcelProbes(client);
        await relinkAfterCadastre(client, table, { copied: true }, 'pg_temp.se_emptied_property');
        // One probe of the parcels for each row found, not a second one for each row it re-links.
        const found = Number((await client.query(`SELECT count(*) AS n FROM pg_temp.relink_row`)).rows[0].n);
        expect((await parcelProbes(client)) - probesBefore).toBe(found);
      }
      const after = await reads();
      const read = (table: string) => after[table] - (before[table] ?? 0);
      // The rows in the changed parcel's box, which the GiST index hands over, and no more.
      expect(read('building')).toBeLessThanOrEqual(Number(buildings) + 2);
      expect(read('address')).toBeLessThanOrEqual(Number(addresses) + 2);
      const rows = (await client.query(`SELECT (SELECT count(*) FROM building WHERE country = 'SE') AS buildings, (SELECT count(*) FROM address WHERE country = 'SE') AS addresses`)).rows[0];
      expect(Number(rows.buildings)).toBeGreaterThan(10 * (Number(buildings) + 2));
      expect(Number(rows.addresses)).toBeGreaterThan(10 * (Number(addresses) + 2));
      const relinked = await client.query(`SELECT cadastre_id FROM building WHERE country = 'SE' AND building_id = $1`, [buildingId]);
      expect(relinked.rows).toEqual([{ cadastre_id: cadastreId }]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('re-links nothing under a parcel a night changed in its row only, and the rows under one it moved or re-linked', async () => {
    const client = await pipeline.pool.connect();
    try {
      await client.query('BEGIN');
      // A one-area property with buildings and addresses on it, as the first test published it.
      const property = truth.find((p) => p.kind === 'fastighet' && p.areas.length === 1 && p.addresses.length > 0 && p.buildings.length > 0)!;
      const parcelId = property.areas[0].objektidentitet;
      const stagingTable = 'staging.se_cadastre_same_place_test';
      await client.query(createStagingSql(seCadastre, stagingTable));
      const scope = { country: 'SE' as const, municipalities: null };
      // A night's: it removed no parcel, and no property lost its last area.
      await client.query(`CREATE TEMP TABLE se_removed_keys (parcel_id text) ON COMMIT DROP`);
      await client.query(`CREATE TEMP TABLE se_emptied_property (cadastre_id text) ON COMMIT DROP`);
      /** The rows a night's re-link reads after staging the parcel as `staged` (SQL over the live parcel `p` and its link `pp`). */
      const rowsRelinked = async (staged: { geom: string; cadastreId: string }) => {
        await client.query(`TRUNCATE ${stagingTable}`);
        // Staged as the file would give it, with another row hash: a date or a version changed.
        await client.query(
          `INSERT INTO ${stagingTable} (src_pos, parcel_id, register_ref, cadastre_id, designation, municipality_code, property_type, area_number, geom, area_m2, source_srid, row_hash)
           SELECT 1, p.parcel_id, 'ref', ${staged.cadastreId}, 'designation', p.municipality_code, 'fastighet', 1, ${staged.geom}, p.area_m2, p.source_srid, gen_random_uuid()
           FROM parcel p JOIN parcel_property pp USING (country, parcel_id) WHERE p.country = 'SE' AND p.parcel_id = $1`,
          [parcelId],
        );
        await collectReplacedParcels(client, stagingTable, scope, PARCEL_PLACE, 'pg_temp.se_removed_keys');
        // The merge, as far as the re-link reads it: the parcel rewritten by this run.
        await client.query(
          `UPDATE parcel p SET geom = s.geom, row_hash = s.row_hash, published_run_id = 'r-same-place' FROM ${stagingTable} s WHERE p.country = 'SE' AND p.parcel_id = s.parcel_id`,
        );
        await client.query(`UPDATE parcel_property pp SET cadastre_id = s.cadastre_id FROM ${stagingTable} s WHERE pp.country = 'SE' AND pp.parcel_id = s.parcel_id`);
        const changed = await changedParcels(client, 'r-same-place', { inserted: 0, updated: 1, deleted: 0 });
        expect(changed).toEqual({ copied: true });
        let found = 0;
        for (const table of ['building', 'address'] as const) {
          await relinkAfterCadastre(client, table, changed, 'pg_temp.se_emptied_property');
          found += Number((await client.query(`SELECT count(*) AS n FROM pg_temp.relink_row`)).rows[0].n);
        }
        expect(await staleLinks(client)).toEqual([]);
        return found;
      };
      // Only its row changed: it covers the same points for the same property, nothing to re-link.
      expect(await rowsRelinked({ geom: 'p.geom', cadastreId: 'pp.cadastre_id' })).toBe(0);
      // Re-designated in the same place: every row on it follows.
      const underIt = property.buildings.length + property.addresses.length;
      expect(await rowsRelinked({ geom: 'p.geom', cadastreId: `pp.cadastre_id || '0'` })).toBeGreaterThanOrEqual(underIt);
      // Moved away (a hundred metres north): the rows it covered, as it was, are read again.
      expect(await rowsRelinked({ geom: 'ST_Translate(p.geom, 0, 0.001)', cadastreId: 'pp.cadastre_id' })).toBeGreaterThanOrEqual(underIt);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('re-links a whole register from the parcels, not by probing the parcels for every row', async () => {
    const client = await pipeline.pool.connect();
    try {
      await client.query('BEGIN');
      // Links gone stale every way: lost, pointing at another property, and set where no parcel covers the row.
      for (const table of ['building', 'address'] as const) {
        const key = table === 'building' ? 'building_id' : 'address_id';
        await client.query(
          `UPDATE ${table} SET cadastre_id = CASE WHEN cadastre_id IS NULL THEN 'SE_NOWHERE_1' WHEN hashtext(${key}) % 2 = 0 THEN NULL ELSE 'SE_OTHER_1' END
           WHERE country = 'SE' AND ctid IN (SELECT ctid FROM ${table} WHERE country = 'SE' ORDER BY ${key} LIMIT 40)`,
        );
      }
      expect((await staleLinks(client)).length).toBeGreaterThanOrEqual(2 * 40);
      const rows = Number((await client.query(`SELECT (SELECT count(*) FROM building WHERE country = 'SE') + (SELECT count(*) FROM address WHERE country = 'SE') AS n`)).rows[0].n);
      const plans: ExplainedStatement[] = [];
      await explainEachStatement(client, plans);
      for (const table of ['building', 'address'] as const) await relinkAfterCadastre(client, table, { copied: false });
      await client.query(`SET auto_explain.log_min_duration = -1`);
      expect(await staleLinks(client)).toEqual([]);
      // Each parcel looks up the rows under it in their index; probing the parcels' index for each
      // of the rows instead cost nearly three times as long at 0.05 × national (covering-property.ts).
      expect(rows).toBeGreaterThan(500);
      const indexes = plans.map((statement) => JSON.stringify(statement.Plan));
      expect(indexes.filter((plan) => plan.includes('"parcel_geom_idx"'))).toEqual([]);
      expect(indexes.filter((plan) => plan.includes('"building_location_idx"') || plan.includes('"address_se_geom_idx"'))).toHaveLength(2);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('links a first load\'s building parts from the parcels, and fewer parts than four fifths of the parcels each by a probe of the parcels', async () => {
    const client = await pipeline.pool.connect();
    const stagingTable = 'staging.se_building_link_test';
    // The live footprints as parts of other buildings (none is kept from live), municipality unknown.
    const stage = async (parts: number) => {
      await client.query(`DROP TABLE IF EXISTS ${stagingTable}`);
      await client.query(createStagingSql(seBuilding, stagingTable));
      await client.query(
        `INSERT INTO ${stagingTable} (src_pos, building_id, geom, area_m2, source_srid, row_hash)
         SELECT row_number() OVER (ORDER BY building_id), 'part-' || building_id, geom, footprint_m2, source_srid, md5(building_id)::uuid
         FROM building WHERE country = 'SE' ORDER BY building_id LIMIT $1`,
        [parts],
      );
    };
    // Each part names the property covering its point on surface, and that parcel's municipality.
    const misLinked = async () =>
      Number((await client.query(
        `SELECT count(*) AS n FROM ${stagingTable} s LEFT JOIN LATERAL ${coveringParcelSql('ST_PointOnSurface(s.geom)', 'p.municipality_code')} c ON true
         WHERE s.cadastre_id IS DISTINCT FROM c.cadastre_id OR s.municipality_code IS DISTINCT FROM coalesce(c.municipality_code, s.municipality_code)`,
      )).rows[0].n);
    try {
      const parcels = Number((await client.query(`SELECT count(*) AS n FROM parcel WHERE country = 'SE'`)).rows[0].n);
      // As many parts as parcels, three fifths as many (where probing each costs less), a night's few.
      for (const [parts, probesEach] of [[parcels, false], [Math.ceil(parcels * 0.6), true], [5, true]] as const) {
        await stage(parts);
        const plans: ExplainedStatement[] = [];
        await explainEachStatement(client, plans);
        await seBuilding.repairStaged!({ client, stagingTable, runId: 'link-test', sourceId: seBuilding.id });
        await client.query(`SET auto_explain.log_min_duration = -1`);
        client.removeAllListeners('notice');
        expect(Number((await client.query(`SELECT count(*) AS n FROM ${stagingTable} WHERE cadastre_id IS NOT NULL`)).rows[0].n)).toBeGreaterThan(parts / 2);
        expect(await misLinked()).toBe(0);
        // The statements that link the parts not linked yet, and whether each probes the parcels' index.
        const linking = plans.filter((statement) => /^\s*(UPDATE|WITH)\b/.test(statement['Query Text']) && statement['Query Text'].includes('cadastre_id IS NULL'));
        const probes = linking.map((statement) => JSON.stringify(statement.Plan).includes('"parcel_geom_idx"'));
        // Each part probes the parcels, or (many parts) each parcel looks up the parts under it and no part probes the parcels.
        expect(probes).toEqual([probesEach]);
      }
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${stagingTable}`);
      await client.query(`DELETE FROM source_reject WHERE run_id = 'link-test'`);
      client.release();
    }
  });

  it('changes nothing on a second identical run: unchanged, and zero changes when forced', async () => {
    const before = await swedishDigest(pipeline.pool);
    for (const source of [seCadastre, seAddress, seBuilding]) {
      const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: file(source.inputFileName) });
      expect(sourceOf(again, source.id)).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
      const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: file(source.inputFileName), force: true });
      expect(sourceOf(forced, source.id)).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    }
    expect(await swedishDigest(pipeline.pool)).toEqual(before);
  });

  it('loads one municipality from a zip download without touching the others', async () => {
    const before = await swedishDigest(pipeline.pool);
    const umea = path.join(pipeline.dataDir, 'umea', 'fastighetsindelning_kn2480.gpkg');
    await mkdir(path.dirname(umea), { recursive: true });
    await copyFile(file(seCadastre.inputFileName), umea);
    const db = new Database(umea);
    db.prepare(`DELETE FROM registerenhetsomradesyta WHERE kommunkod <> '2480'`).run();
    db.close();
    const zip = path.join(pipeline.dataDir, 'umea', 'fastighetsindelning_kn2480.zip');
    const archive = new yazl.ZipFile();
    archive.addFile(umea, 'fastighetsindelning_kn2480.gpkg');
    archive.end();
    await pipeline_(archive.outputStream, createWriteStream(zip));
    const areas = truth.filter((p) => p.kommunkod === '2480').reduce((n, p) => n + p.areas.length, 0);
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-cadastre', input: zip });
    expect(sourceOf(summary, 'se-cadastre')).toMatchObject({ outcome: 'published', rowsRead: areas, rowsRejected: 0, inserted: 0, updated: 0, deleted: 0 });
    expect(await swedishDigest(pipeline.pool)).toEqual(before);
    // The GeoPackage extracted next to the downloaded artifact is gone after staging.
    const artifact = (await pipeline.pool.query(`SELECT artifact_path FROM source_run WHERE run_id = $1 AND source_id = 'se-cadastre'`, [summary.runId])).rows[0].artifact_path;
    const artifactName = path.basename(artifact);
    expect(artifactName).toMatch(/\.zip$/);
    expect((await readdir(path.dirname(artifact))).filter((name) => name.startsWith(`${artifactName}.`))).toEqual([]);
  });

  it('runs in a refresh after the cadastre they depend on, and changes nothing there either', async () => {
    process.env.NORDPROP_INPUT_DIR = sampleDir;
    const before = await swedishDigest(pipeline.pool);
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['se-building', 'se-address', 'se-cadastre'], force: true });
    for (const id of ['se-cadastre', 'se-address', 'se-building']) expect(sourceOf(summary, id)).toMatchObject({ outcome: 'published', rowsRejected: 0, inserted: 0, updated: 0, deleted: 0 });
    expect(await swedishDigest(pipeline.pool)).toEqual(before);
  });

  it('rewrites only the buildings that changed on a later night, though every row after a removed one has a new fid', async () => {
    // Night 3 of the same sample (sample/night.ts): properties removed, replaced and changed.
    const later = planSwedishSample(COUNT, SEED);
    later.night = planNight(later.seedHash, NightChannel.sweden, COUNT, 3);
    const nightFile = path.join(pipeline.dataDir, 'night-3', seBuilding.inputFileName);
    await mkdir(path.dirname(nightFile), { recursive: true });
    writeSeBuildingGpkg({ seed: SEED, parcels: COUNT, plan: undefined as never, sePlan: later, path: nightFile });
    const properties = [...propertiesOfSwedishPlan(later)];
    const buildingIds = (of: SeSampleProperty[]) => new Set(of.flatMap((p) => p.buildings.map((b) => b.objektidentitet)));
    const [was, now] = [buildingIds(truth), buildingIds(properties)];
    const removed = [...was].filter((id) => !now.has(id)).length;
    const added = [...now].filter((id) => !was.has(id)).length;
    // Only a changed property's buildings are drawn anew; every other building is the same as before.
    const redrawn = properties.filter((p) => later.night!.changedOn.has(p.index)).reduce((n, p) => n + p.buildings.length, 0);
    expect(removed).toBeGreaterThan(0);

    const liveCount = async () => Number((await pipeline.pool.query(`SELECT count(*) FROM building WHERE country = 'SE'`)).rows[0].count);
    const before = await liveCount();
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-building', input: nightFile });
    const night = sourceOf(summary, 'se-building');
    expect(night).toMatchObject({ outcome: 'published', rowsRejected: 0, inserted: added, deleted: removed });
    expect(night.updated).toBeLessThanOrEqual(redrawn);
    expect(await liveCount()).toBe(before + added - removed);
  });
  it('publishes on a changed night what a first load of the same night\'s files publishes', async () => {
    // Night 3 of the same sample: parcels, addresses and buildings changed, added and removed together.
    const later = planSwedishSample(COUNT, SEED);
    later.night = planNight(later.seedHash, NightChannel.sweden, COUNT, 3);
    const dir = path.join(pipeline.dataDir, 'night-3-all');
    await mkdir(dir, { recursive: true });
    const context = { seed: SEED, parcels: COUNT, plan: undefined as never, sePlan: later };
    writeSeCadastreGpkg({ ...context, path: path.join(dir, seCadastre.inputFileName) });
    writeSeAddressGpkg({ ...context, path: path.join(dir, seAddress.inputFileName) });
    writeSeBuildingGpkg({ ...context, path: path.join(dir, seBuilding.inputFileName) });
    // What a user reads: every row's key and content, without the run and time it was written.
    const published = async () => {
      const digest: Record<string, string> = {};
      for (const [table, columns] of Object.entries({
        parcel: 'parcel_id, municipality_code, geom, area_m2, row_hash',
        parcel_property: 'parcel_id, cadastre_id, is_main_parcel',
        property_register: 'cadastre_id, register_ref, designation, municipality_code, area_m2, plot_count, row_hash',
        address: 'address_id, cadastre_id, municipality_code, address_text, geom, row_hash',
        building: 'building_id, cadastre_id, municipality_code, geom, location, footprint_m2, row_hash',
      })) {
        digest[table] = await tableDigest(pipeline.pool, table, 'SE', columns);
      }
      return digest;
    };
    const load = async (force: boolean) => {
      for (const source of [seCadastre, seAddress, seBuilding]) {
        const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: path.join(dir, source.inputFileName), force });
        // The previous test already published this building file: unchanged then.
        expect(force ? ['published'] : ['published', 'unchanged']).toContain(sourceOf(summary, source.id).outcome);
      }
    };
    // The real Lantmäteriet buildings of the first test lie in a municipality the sample's files do not cover.
    const sampleBuildings = [...truth, ...propertiesOfSwedishPlan(later)].flatMap((p) => p.buildings.map((b) => b.objektidentitet));
    await pipeline.pool.query(`DELETE FROM building WHERE country = 'SE' AND NOT building_id = ANY($1)`, [sampleBuildings]);
    await load(false);
    const night = await published();
    for (const table of ['building', 'address', 'parcel_property', 'parcel', 'property_register']) await pipeline.pool.query(`DELETE FROM ${table} WHERE country = 'SE'`);
    await load(true);
    expect(await published()).toEqual(night);
  });
});
