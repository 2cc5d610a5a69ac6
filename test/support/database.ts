import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, databaseUrlFor, dropDatabase } from '../../lib/database-admin.js';
import { closePools, getPool } from '../../lib/db.js';

/** A database of this test file's own, cloned from the migrated template. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `nordprop_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const url = databaseUrlFor(inject('adminDatabaseUrl'), name);
  await createDatabase(url, { template: inject('templateDatabase') });
  return { url, drop: () => dropWhenClosed(url, name) };
}

/** How long a dropped test database's closing sessions are waited for before they are forced out. */
const CLOSING_WAIT_MS = 5_000;

/**
 * Drops a test database once the sessions its file closed are gone. pg's `Pool.end()` resolves
 * once it has asked its clients to end, not once the server has seen them go: a forced drop right
 * after it terminated a session still closing, and its client reported the server's FATAL
 * (57P01) as an unhandled error of the file (a clean-clone CI run, two schema test files whose
 * tests had all passed). Sessions a test leaves open are still forced out after the wait.
 */
async function dropWhenClosed(url: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  try {
    for (const until = Date.now() + CLOSING_WAIT_MS; Date.now() < until; ) {
      const open = await admin.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1 LIMIT 1', [name]);
      if (open.rowCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await admin.end();
  }
  await dropDatabase(url);
}

/**
 * A database of this test file's own and one session on it, made before the file's tests (each
 * statement of `setup` run in the session first) and dropped after them: the session, for a test.
 */
export function testDatabaseSession(setup: string[] = []): () => pg.Client {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    for (const statement of setup) await client.query(statement);
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });
  return () => client!;
}

/**
 * A database of this test file's own for the code that reads DATABASE_URL (the activities,
 * through lib/db.ts's pool), made before the file's tests; after them its pools are closed and
 * it is dropped.
 */
export function activityTestDatabase(): void {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    process.env.DATABASE_URL = db.url;
  });
  afterAll(async () => {
    await closePools();
    await db?.drop();
  });
}

/** A backfill in the run ledger with each of `sources` open in it, as an activity called directly expects. */
export async function openTestRun(runId: string, sources: Record<string, 'NO' | 'SE'>): Promise<void> {
  await getPool().query(`INSERT INTO run (run_id, kind, sources) VALUES ($1, 'backfill', $2)`, [runId, Object.keys(sources)]);
  for (const [sourceId, country] of Object.entries(sources)) {
    await getPool().query(`INSERT INTO source_run (run_id, source_id, country) VALUES ($1, $2, $3)`, [runId, sourceId, country]);
  }
}
