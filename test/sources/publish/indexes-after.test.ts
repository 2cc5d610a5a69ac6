/**
 * isEmpty (sources/publish/indexes-after.ts) asks whether a live table holds a country's rows at
 * the start of every publish. The country loaded second lies after the first in the table: read
 * from the start, the question cost a read of the whole first country.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools, getPool } from '../../../lib/db.js';
import { isEmpty } from '../../../sources/publish/indexes-after.js';
import { createTestDatabase } from '../../support/database.js';
import { explainEachStatement, tablesReadWhole, type ExplainedStatement } from '../../support/explained-plans.js';

describe('isEmpty', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = getPool(database.url);
    // Norway's rows first, then Sweden's, as the nightly loads them; analyzed.
    await pool.query(`CREATE TABLE two_countries (country text NOT NULL, k text NOT NULL, pad text, PRIMARY KEY (country, k))`);
    await pool.query(`INSERT INTO two_countries SELECT 'NO', i::text, repeat('x', 60) FROM generate_series(1, 100000) i`);
    await pool.query(`INSERT INTO two_countries SELECT 'SE', i::text, repeat('x', 60) FROM generate_series(1, 150000) i`);
    await pool.query(`ANALYZE two_countries`);
  }, 60_000);
  afterAll(async () => {
    await closePools();
    await database.drop();
  });

  it('finds a country\'s rows by the table\'s key, not by reading the countries before it, and leaves the planner as it was', async () => {
    const client = await pool.connect();
    const explained: ExplainedStatement[] = [];
    try {
      await explainEachStatement(client, explained);
      await client.query('BEGIN');
      const answers = [await isEmpty(client, 'two_countries', 'SE'), await isEmpty(client, 'two_countries', 'DK'), await isEmpty(client, 'two_countries')];
      const after = (await client.query(`SELECT current_setting('enable_seqscan') AS seqscan`)).rows[0].seqscan;
      await client.query('COMMIT');
      expect(answers).toEqual([false, true, false]);
      expect(after).toBe('on');
      const probes = explained.filter((statement) => /FROM two_countries WHERE country/.test(statement['Query Text']));
      expect(probes.length).toBe(2);
      expect(probes.flatMap((probe) => tablesReadWhole(probe.Plan))).toEqual([]);
    } finally {
      client.release();
    }
  });
});
