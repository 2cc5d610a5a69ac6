import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceRecordTable } from '../../activities/source-record-table.js';
import { createTestDatabase } from '../support/database.js';

/**
 * A night's statements over the published line records are planned from the statistics of the
 * source's partition, which the publish analyzes; read through the partitioned table they were
 * planned from default guesses (the partitioned table itself is never analyzed), and took merge
 * joins and sorts that spilled to disk.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

/** The rows the planner expects from the top node of `sql`'s plan. */
async function estimatedRows(sql: string): Promise<number> {
  const plan = await pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) ${sql}`);
  return plan.rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
}

const distinctKeys = (table: string) => `SELECT DISTINCT record_key FROM ${table} WHERE source_id = 'se-building'`;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // 6,000 parts of 3,000 buildings, and the partition analyzed, as a publish leaves them.
  await pool.query(
    `INSERT INTO source_record (source_id, record_key, record_hash)
     SELECT 'se-building', 'building-' || (i % 3000), gen_random_uuid() FROM generate_series(1, 6000) i`,
  );
  await pool.query(`ANALYZE source_record_se_building`);
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('sourceRecordTable', () => {
  it("names the source's own partition, or the partitioned table for a source without one", async () => {
    expect(await sourceRecordTable(pool, 'se-building')).toBe('source_record_se_building');
    expect(await sourceRecordTable(pool, 'no-address')).toBe('source_record_no_address');
    expect(await sourceRecordTable(pool, 'no-area')).toBe('source_record');
  });

  it("plans from the partition's statistics what the partitioned table's lack", async () => {
    // The premise: through the partitioned table, the planner guesses 200 distinct keys.
    expect(await estimatedRows(distinctKeys('source_record'))).toBe(200);
    const rows = await estimatedRows(distinctKeys(await sourceRecordTable(pool, 'se-building')));
    expect(rows).toBeGreaterThan(1500);
    expect(rows).toBeLessThan(6000);
  });
});
