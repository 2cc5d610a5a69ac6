import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRecordHashes } from '../../activities/record-hashes.js';
import { SOURCES } from '../../sources/registry.js';
import { createTestDatabase } from '../support/database.js';

/**
 * `source_record` holds every record-hash source's published hashes, partitioned by source: a
 * night's joins read one source's partition and its statistics (activities/stale-statistics.ts).
 * A source given record hashes without a migration adding its partition writes into the
 * default one, shared with any other such source.
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

describe('source_record', () => {
  it('has a partition of its own for every source with record hashes', async () => {
    const partitions = await pool.query<{ bound: string }>(
      `SELECT pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'source_record'::regclass`,
    );
    const own = new Set(partitions.rows.flatMap((row) => [...row.bound.matchAll(/'([^']+)'/g)].map((match) => match[1])));
    const hashed = SOURCES.filter(hasRecordHashes).map((source) => source.id);
    expect(hashed.filter((id) => !own.has(id)), 'sources whose hashes would go to the default partition').toEqual([]);
  });
});
