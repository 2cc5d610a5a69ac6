import { inject } from 'vitest';
import { createDatabase, databaseUrlFor, dropDatabase } from '../../lib/database-admin.js';

/** A database of this test file's own, cloned from the migrated template. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = databaseUrlFor(inject('adminDatabaseUrl'), `nordprop_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`);
  await createDatabase(url, { template: inject('templateDatabase') });
  return { url, drop: () => dropDatabase(url) };
}
