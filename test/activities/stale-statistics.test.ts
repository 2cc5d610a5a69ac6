import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeStaleTables } from '../../activities/stale-statistics.js';
import { createTestDatabase } from '../support/database.js';

/**
 * ANALYZE after a publish samples the whole table whatever changed: a changed night of a few
 * per cent paid it on every table it touched. Only tables a publish made stale are analyzed.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

const analyses = async () =>
  Number((await pool.query(`SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'stats_probe'`)).rows[0].analyze_count);
const counts = (changes: number) => ({ stats_probe: { inserted: changes, updated: 0, deleted: 0 } });

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // Autovacuum off for the probe: only the publish's own ANALYZE counts.
  await pool.query(`CREATE TABLE stats_probe (id int PRIMARY KEY, label text) WITH (autovacuum_enabled = off)`);
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('analyzeStaleTables', () => {
  it('analyzes a table the publish filled for the first time', async () => {
    await pool.query(`INSERT INTO stats_probe SELECT i, 'row ' || i FROM generate_series(1, 10000) i`);
    expect(await analyzeStaleTables(pool, counts(10000))).toEqual(['stats_probe']);
    expect(await analyses()).toBe(1);
    expect(Number((await pool.query(`SELECT reltuples FROM pg_class WHERE relname = 'stats_probe'`)).rows[0].reltuples)).toBe(10000);
  });

  it('leaves a table a night changed by a few per cent to autovacuum', async () => {
    await pool.query(`UPDATE stats_probe SET label = 'changed' WHERE id <= 200`);
    expect(await analyzeStaleTables(pool, counts(200))).toEqual([]);
    expect(await analyses()).toBe(1);
  });

  it('analyzes a table a publish changed by a tenth or more, and skips tables it did not change', async () => {
    await pool.query(`UPDATE stats_probe SET label = 'redrawn' WHERE id <= 1000`);
    expect(await analyzeStaleTables(pool, { ...counts(1000), no_such_table: { inserted: 5, updated: 0, deleted: 0 } })).toEqual(['stats_probe']);
    expect(await analyses()).toBe(2);
    expect(await analyzeStaleTables(pool, counts(0))).toEqual([]);
  });
});
