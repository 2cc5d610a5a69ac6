import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { mergeTable, withHashJoins, withHashJoinsOnly, withKeyLookups } from '../../../sources/publish/merge-table.js';
import { createTestDatabase } from '../../support/database.js';
import { explainEachStatement, readsOf, type ExplainedStatement } from '../../support/explained-plans.js';
import { COMPANY_MERGE, SE_COMPANY_SCOPE } from '../../../sources/se/business/publish.js';

/**
 * The insert's column expressions can be correlated subqueries (a Swedish address's covering
 * property): they must be planned with the planner's own settings. Under nested loops off, that
 * subquery hash-joined a whole table per row (30 ms instead of 0.075 ms per address).
 */
describe('mergeTable', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = getPool(database.url);
    await pool.query(`CREATE TABLE merge_probe (country text NOT NULL, k text NOT NULL, v text, nestloop text,
      row_hash uuid NOT NULL, published_run_id text, updated_at timestamptz, PRIMARY KEY (country, k))`);
    await pool.query(`CREATE UNLOGGED TABLE merge_staging (src_pos bigint, k text, v text, row_hash uuid)`);
  });
  afterAll(async () => {
    await closePools();
    await database.drop();
  });

  async function publish(rows: [string, string][], runId: string) {
    await pool.query('TRUNCATE merge_staging');
    for (const [i, [k, v]] of rows.entries()) {
      await pool.query(`INSERT INTO merge_staging VALUES ($1, $2, $3, md5($2 || $3)::uuid)`, [i + 1, k, v]);
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const merge = { liveTable: 'merge_probe', keyColumn: 'k', columns: { v: 's.v', nestloop: `current_setting('enable_nestloop')` } };
      const counts = await mergeTable(client, 'merge_staging', merge, { country: 'SE', municipalities: null }, runId);
      await client.query('COMMIT');
      return counts;
    } finally {
      client.release();
    }
  }

  it('evaluates inserted rows under the planner settings of the session, on a first load and after', async () => {
    expect(await publish([['a', '1'], ['b', '2']], 'r1')).toEqual({ inserted: 2, updated: 0, deleted: 0 });
    expect(await publish([['a', '1'], ['c', '3']], 'r2')).toEqual({ inserted: 1, updated: 0, deleted: 1 });
    const rows = await pool.query(`SELECT k, v, nestloop FROM merge_probe ORDER BY k`);
    expect(rows.rows).toEqual([
      { k: 'a', v: '1', nestloop: 'on' },
      { k: 'c', v: '3', nestloop: 'on' },
    ]);
  });

  it('a country first load beside the other country inserts every staged row and deletes none of the other', async () => {
    await pool.query(`INSERT INTO merge_probe VALUES ('NO', 'a', 'x', 'n', md5('x')::uuid, 'r0', now())`);
    const counts = await publish([['a', '1'], ['c', '3']], 'r3');
    expect(counts.deleted).toBe(0);
    expect((await pool.query(`SELECT count(*)::int AS n FROM merge_probe WHERE country = 'NO'`)).rows[0].n).toBe(1);
  });

  // An increment stages a few percent of live: hashed, its update and delete read all of live
  // (se-cadastre's night at 0.05 x national hashed 177,669 parcels to update 1,351). By key,
  // with every column of the primary key: company's is (org_scheme, org_id), and looked up by
  // org_id alone each of se-business's 1,877 deletions read every Swedish company (12 s).
  it('an increment updates and deletes its live rows by their primary key, reading no live table whole', async () => {
    await pool.query(
      `INSERT INTO company (country, org_scheme, org_id, name, row_hash, published_run_id)
       SELECT 'SE', '0007', lpad(i::text, 10, '0'), 'Company ' || i, md5(i::text)::uuid, 'r0' FROM generate_series(1, 20000) i`,
    );
    await pool.query(`ANALYZE company`);
    const client = await pool.connect();
    const plans: ExplainedStatement[] = [];
    try {
      await client.query('BEGIN');
      await client.query(
        `CREATE TEMP TABLE increment ON COMMIT DROP AS
         SELECT org_id, name || ' renamed' AS name, legal_form, nace_code, registered_date, deleted_date, name_protection_no, business_description,
                secondary_nace_codes, register_status, ongoing_procedure, md5(org_id || 'renamed')::uuid AS row_hash
         FROM company WHERE org_id <= lpad('20', 10, '0')`,
      );
      await client.query(`CREATE TEMP TABLE removed ON COMMIT DROP AS SELECT org_id FROM company WHERE org_id > lpad('19990', 10, '0')`);
      await client.query(`ANALYZE increment, removed`);
      await explainEachStatement(client, plans);
      const counts = await mergeTable(client, 'pg_temp.increment', COMPANY_MERGE, SE_COMPANY_SCOPE, 'r1', { removedKeys: 'pg_temp.removed' });
      expect(counts).toEqual({ inserted: 0, updated: 20, deleted: 10 });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    const reads = (statement: RegExp) => plans.filter((plan) => statement.test(plan['Query Text'])).flatMap((plan) => readsOf(plan.Plan, 'company'));
    // The whole key in the index condition: by org_id alone, the scan reads the whole index for each row.
    const byPrimaryKey = [expect.stringMatching(/^Index Scan company_pkey \(\(org_scheme = '0007'::text\) AND \(org_id = \w+\.org_id\)\)$/)];
    expect(reads(/^\s*UPDATE company AS live/)).toEqual(byPrimaryKey);
    expect(reads(/^\s*DELETE FROM company live USING pg_temp.removed/)).toEqual(byPrimaryKey);
  });

  // A load host may turn a join method off for good (the database's or the role's settings);
  // a publish statement that turns it off for itself must leave it off, not switch it on.
  it.each([['withHashJoins', withHashJoins], ['withHashJoinsOnly', withHashJoinsOnly], ['withKeyLookups', withKeyLookups]] as const)(
    '%s puts back the join methods the session had, not its defaults',
    async (_name, joinMethods) => {
      const client = await pool.connect();
      const methods = ['nestloop', 'hashjoin', 'mergejoin'];
      const settings = () =>
        client.query(`SELECT ${methods.map((m) => `current_setting('enable_${m}') AS ${m}`).join(', ')}`).then((r) => r.rows[0] as Record<string, string>);
      try {
        await client.query('BEGIN');
        for (const [i, had] of [{ nestloop: 'off', hashjoin: 'off', mergejoin: 'off' }, { nestloop: 'on', hashjoin: 'off', mergejoin: 'on' }].entries()) {
          for (const method of methods) await client.query(`SELECT set_config('enable_${method}', $1, true)`, [had[method as keyof typeof had]]);
          const during = await joinMethods(client, settings);
          expect(Object.values(during).filter((value) => value === 'off').length, `try ${i}`).toBeGreaterThan(0);
          expect(await settings(), `try ${i}`).toEqual(had);
        }
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    },
  );

  it.each([['withHashJoins', withHashJoins], ['withKeyLookups', withKeyLookups]] as const)(
    '%s: a statement that fails surfaces its own error, and the join methods are back once it succeeds',
    async (_name, joinMethods) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const settings = () => client.query(`SELECT current_setting('enable_nestloop') AS nestloop, current_setting('enable_hashjoin') AS hashjoin`).then((r) => r.rows[0]);
        await joinMethods(client, settings);
        expect(await settings()).toEqual({ nestloop: 'on', hashjoin: 'on' });
        // Before, enabling them again ran on the aborted transaction, and its error replaced this one.
        const duplicate = joinMethods(client, () => client.query(`INSERT INTO merge_probe SELECT * FROM merge_probe LIMIT 1`));
        await expect(duplicate).rejects.toThrow(/duplicate key value violates unique constraint "merge_probe_pkey"/);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    },
  );
});
