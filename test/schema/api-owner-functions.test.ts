import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const one = async (sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows[0];

describe('the SQL functions that write an owner for the API (schema/1764000000000_api-party-one-function.sql)', () => {
  it('one function writes an Owner, taking registeredAt as api_registered_at wrote it: a registration day stays a day', async () => {
    const functions = await pool.query(`SELECT proname FROM pg_proc WHERE proname LIKE 'api\\_party%' ORDER BY proname`);
    expect(functions.rows.map((row) => row.proname)).toEqual(['api_party']);
    // 2009-01-04 registered in Norway, stored as its local midnight.
    const { owner } = await one(
      `SELECT api_party('PERSON', 'Kari Nordmann', 1970, NULL, NULL, NULL, NULL, 1, 2,
                        api_registered_at('2009-01-03T23:00:00Z'::timestamptz, 'NO')) AS owner`,
    );
    expect(owner).toEqual({
      kind: 'PERSON', organization: null, person: { name: 'Kari Nordmann', birthYear: 1970 },
      share: { numerator: 1, denominator: 2 }, registeredAt: '2009-01-04',
    });
  });

  it('declares them STABLE, as PostgreSQL declares the to_char and json_build_object they call', async () => {
    const volatility = await pool.query(
      `SELECT proname, provolatile FROM pg_proc WHERE proname IN ('api_party', 'api_registered_at', 'to_char', 'json_build_object')
       GROUP BY proname, provolatile ORDER BY proname`,
    );
    expect(volatility.rows).toEqual([
      { proname: 'api_party', provolatile: 's' },
      { proname: 'api_registered_at', provolatile: 's' },
      { proname: 'json_build_object', provolatile: 's' },
      { proname: 'to_char', provolatile: 's' },
    ]);
  });
});
