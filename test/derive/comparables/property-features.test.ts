import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { createPropertyFeatures, FEATURES_TABLE } from '../../../derive/comparables/property-features.js';
import { createTestDatabase } from '../../support/database.js';
import { insertProperties } from '../../support/market-fixture.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

/** A building without bruksenheter (a barn, a shed) on a property, as the Norwegian registers give it: no main-building flag. */
async function addBuildingWithoutUnits(cadastreId: string, number: string, typeCode: string, usableAreaM2: number, builtYear: number): Promise<void> {
  await pool.query(
    `INSERT INTO building (country, building_id, building_number, cadastre_id, municipality_code, building_type_code, geom, location, source_srid, row_hash, published_run_id)
     SELECT 'NO', $1, $1, $2, municipality_code, $3, geom, location, 25833, gen_random_uuid(), 'fixture' FROM building WHERE cadastre_id = $2 LIMIT 1`,
    [number, cadastreId, typeCode],
  );
  await pool.query(
    `INSERT INTO building_detail (country, building_number, cadastre_id, built_year, usable_area_m2, row_hash, published_run_id)
     VALUES ('NO', $1, $2, $3, $4, gen_random_uuid(), 'fixture')`,
    [number, cadastreId, builtYear, usableAreaM2],
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
  // A farm: a 140 m² farmhouse with its dwelling, beside a 600 m² barn (larger, and without units).
  // A bare farm teig: two barns, no dwelling. Neither register flags a main building in Norway.
  await insertProperties(pool, [
    { cadastreId: '3401-10-1-0-0', east: 322_000, north: 6_650_000, sizeM2: 140, buildingType: '111', builtYear: 1975 },
    { cadastreId: '3401-10-2-0-0', east: 322_500, north: 6_650_000, sizeM2: 300, buildingType: '241', builtYear: 1960 },
  ]);
  await pool.query(`UPDATE building SET is_main_building = NULL`);
  await pool.query(`DELETE FROM unit WHERE cadastre_id = '3401-10-2-0-0'`);
  await addBuildingWithoutUnits('3401-10-1-0-0', 'barn-1', '241', 600, 1930);
  await addBuildingWithoutUnits('3401-10-2-0-0', 'barn-2', '249', 450, 1990);
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('property features (Norway)', () => {
  it('a farm is its farmhouse: the building with the bruksenheter, not the larger barn; a teig without any takes its largest building', async () => {
    const client = await pool.connect();
    try {
      await createPropertyFeatures(client, 'NO');
      const rows = (await client.query(`SELECT cadastre_id, building_type, built_year, size_m2, model_class FROM pg_temp.${FEATURES_TABLE} ORDER BY cadastre_id`)).rows;
      expect(rows).toEqual([
        // The size is the dwelling's bruksenhet; the type, age and model class are the farmhouse's.
        { cadastre_id: '3401-10-1-0-0', building_type: '111', built_year: 1975, size_m2: 140, model_class: 'GRUNNEIENDOM:11' },
        // No bruksenheter: the buildings' usable area, typed by the larger barn.
        { cadastre_id: '3401-10-2-0-0', building_type: '249', built_year: 1990, size_m2: 750, model_class: 'GRUNNEIENDOM:24' },
      ]);
    } finally {
      client.release();
    }
  });
});
