import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, databaseUrlFor, dropDatabase } from '../../lib/database-admin.js';

/** A database of this test file's own, cloned from the migrated template. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = databaseUrlFor(inject('adminDatabaseUrl'), `nordprop_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`);
  await createDatabase(url, { template: inject('templateDatabase') });
  return { url, drop: () => dropDatabase(url) };
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
