import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, databaseUrlFor, dropDatabase } from '../../lib/database-admin.js';
import { closePools, getPool } from '../../lib/db.js';

/** A database of this test file's own, cloned from the migrated template. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = databaseUrlFor(inject('adminDatabaseUrl'), `nordprop_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`);
  await createDatabase(url, { template: inject('templateDatabase') });
  return { url, drop: () => dropDatabase(url, { closingWaitMs: CLOSING_WAIT_MS }) };
}

/** How long a dropped test database's closing sessions are waited for before they are forced out (lib/database-admin.ts). */
const CLOSING_WAIT_MS = 5_000;

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
