import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { CANDIDATE_POOL, MAX_COMPARABLES, SaleIndex, type Subject } from '../../../derive/comparables/nearest-sales.js';
import { createTestDatabase } from '../../support/database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let client: pg.PoolClient;

// A block of 80 flats (sections of one building, so one point) 100 m from the subject, alike in
// every way: far more equally near sales than the pool of CANDIDATE_POOL holds.
const SUBJECT: Subject = { key: 's', cadastreId: '0301-1-1-0-0', east: 500_000, north: 6_600_000, sizeM2: 70, propertyType: 'EIERSEKSJON', buildingType: '142', builtYear: 1990 };
const FLATS = 80;

async function createSales(table: string, extra: number): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.query(
    `CREATE TEMP TABLE ${table} (transaction_id text, cadastre_id text, geom geometry(Point, 25833), price_per_m2 double precision,
                                currency text, size_m2 double precision, property_type text, building_type text, built_year int)`,
  );
  // Written in a scrambled id order, so nothing depends on the order rows arrive in.
  await client.query(
    `INSERT INTO ${table}
     SELECT 'flat-' || lpad(k::text, 3, '0'), '0301-1-2-0-' || k, ST_SetSRID(ST_MakePoint(500100, 6600000), 25833), 60000, 'NOK', 70, 'EIERSEKSJON', '142', 1990
     FROM generate_series(1, ${FLATS}) k ORDER BY md5(k::text)`,
  );
  // Sales far away (30 km and more): none is a candidate, but they reshape the index's tree.
  await client.query(
    `INSERT INTO ${table}
     SELECT 'far-' || k, '0301-9-' || k || '-0-0', ST_SetSRID(ST_MakePoint(530000 + (k % 50) * 97, 6600000 + (k / 50) * 131), 25833), 50000, 'NOK', 120, 'EIENDOM', '111', 1970
     FROM generate_series(1, ${extra}) k`,
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
  client = await pool.connect();
});
afterAll(async () => {
  client?.release();
  await closePools();
  await database?.drop();
});

describe('nearest sales', () => {
  it('more equally near sales than the pool holds: the lowest transaction ids, whatever else the index holds', async () => {
    const expected = Array.from({ length: MAX_COMPARABLES }, (_, k) => `flat-${String(k + 1).padStart(3, '0')}`);
    expect(FLATS).toBeGreaterThan(CANDIDATE_POOL);
    for (const extra of [0, 1, 37, 500, 2_000]) {
      await createSales('pg_temp.sales', extra);
      const index = await SaleIndex.load(client, 'pg_temp.sales');
      expect(index.size).toBe(FLATS + extra);
      const chosen = index.choose(SUBJECT);
      expect(chosen.map((c) => c.transactionId), `with ${extra} sales elsewhere`).toEqual(expected);
      expect(chosen.every((c) => c.distanceM === 100)).toBe(true);
    }
  });
});
