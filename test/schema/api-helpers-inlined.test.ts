import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';

/**
 * The API's SQL helpers (api_date, api_location, api_party, …) are one expression each, meant to
 * be inlined into the queries that call them. PostgreSQL inlines a SQL function only when its
 * declared volatility holds for its body: declared IMMUTABLE around STABLE calls (to_char,
 * json_build_object), a helper ran as a function call per value of every response row
 * (schema/1764001500000_api-helpers-stable.sql).
 */

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

describe("the API's SQL helpers", () => {
  it('are inlined into a query over columns: EXPLAIN VERBOSE shows their bodies, not calls to them', async () => {
    const helpers = await pool.query<{ name: string; types: string[] }>(
      `SELECT p.proname AS name, array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) AS t) AS types
       FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'api\\_%' AND l.lanname = 'sql'
         AND p.provolatile <> 'v' AND NOT p.proretset AND p.pronargs > 0
       ORDER BY p.proname`,
    );
    // The helpers the API's queries call, at least: a helper dropped from this list would go untested.
    expect(helpers.rows.map((helper) => helper.name)).toEqual(expect.arrayContaining(['api_address', 'api_date', 'api_location', 'api_money', 'api_party', 'api_share', 'api_timestamp']));
    const called: string[] = [];
    for (const { name, types } of helpers.rows) {
      // Two rows of NULLs of the argument types: columns, so nothing is folded to a constant first.
      const row = types.map((type) => `NULL::${type}`).join(', ');
      const columns = types.map((_, i) => `c${i}`);
      const plan = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (VERBOSE, COSTS OFF) SELECT ${name}(${columns.join(', ')}) FROM (VALUES (${row}), (${row})) AS v(${columns.join(', ')})`,
      );
      if (plan.rows.some((line) => line['QUERY PLAN'].includes(`${name}(`))) called.push(name);
    }
    expect(called).toEqual([]);
  });
});
