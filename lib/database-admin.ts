import pg from 'pg';
import { quoteIdent } from './db.js';

/**
 * Creating and dropping whole databases, through the server's `postgres` database: for setup
 * (the store), the tests (a template and a database per test file) and the benchmark.
 */

/** The URL of database `name` on the same server as `url`. */
export function databaseUrlFor(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${encodeURIComponent(name)}`;
  return target.toString();
}

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) throw new Error(`database URL ${url} names no database`);
  return name;
}

async function withAdmin<T>(url: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: databaseUrlFor(url, 'postgres') });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Creates the database `url` names (from `template` if given); false when it already exists. */
export async function createDatabase(url: string, options: { template?: string; ifNotExists?: boolean } = {}): Promise<boolean> {
  const name = databaseName(url);
  return withAdmin(url, async (admin) => {
    if (options.ifNotExists && (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return false;
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}${options.template ? ` TEMPLATE ${quoteIdent(options.template)}` : ''}`);
    return true;
  });
}

/**
 * Drops the database `url` names, disconnecting its sessions; no error when it is gone. With
 * `closingWaitMs`, first waits up to that long for its sessions to leave: pg's `Pool.end()`
 * resolves once it has asked its clients to end, not once the server has seen them go, and a
 * forced drop terminates a session still closing, whose client then reports the server's FATAL
 * (57P01) as an error (two schema test files' unhandled errors in a clean-clone CI run).
 */
export async function dropDatabase(url: string, options: { closingWaitMs?: number } = {}): Promise<void> {
  const name = databaseName(url);
  await withAdmin(url, async (admin) => {
    for (const until = Date.now() + (options.closingWaitMs ?? 0); Date.now() < until; ) {
      if ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1 LIMIT 1', [name])).rowCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  });
}
