import path from 'node:path';
import { runner } from 'node-pg-migrate';
import { PROJECT_ROOT } from './config.js';
import { createDatabase } from './database-admin.js';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'schema');

/** Creates the database named in the URL when it does not exist yet; true when it did not. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  return createDatabase(databaseUrl, { ifNotExists: true });
}

/** Applies pending migrations in order; returns the names applied (none when up to date). */
export async function migrate(databaseUrl: string, log: (message: string) => void = () => undefined): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'schema_migrations',
    checkOrder: true,
    log,
    logger: { debug: () => undefined, info: log, warn: log, error: log },
  });
  return applied.map((migration) => migration.name);
}
