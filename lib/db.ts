import pg from 'pg';
import { loadConfig } from './config.js';

// Numeric and bigint columns arrive as JS numbers: counts and areas here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

const pools = new Map<string, pg.Pool>();

/** What a pool's sessions serve: the pipeline's set-based work, or the API's point lookups. */
export type PoolUse = 'pipeline' | 'api';

/**
 * Session settings per use (the `-c` options of the connection's startup). The API's statements
 * are index lookups that run in well under a millisecond, but at national size the planner
 * prices the spatial ones (a GiST match it expects to return thousands of rows, each rechecked)
 * above the parallel-query threshold: a coordinate lookup then started a parallel worker, and
 * took 35 ms instead of 0.3. Its sessions never plan parallel workers, nor JIT compilation.
 */
export const SESSION_OPTIONS: Record<PoolUse, string | undefined> = {
  pipeline: undefined,
  api: '-c max_parallel_workers_per_gather=0 -c jit=off',
};

/** One pool per database URL, use and process; activities and CLI verbs share the pipeline's. */
export function getPool(databaseUrl = loadConfig().databaseUrl, use: PoolUse = 'pipeline'): pg.Pool {
  const key = `${use} ${databaseUrl}`;
  let pool = pools.get(key);
  if (!pool) {
    // A stage activity holds two connections (COPY and rejects) and the worker runs four
    // activities at once: room for all of them plus the short ledger queries beside them.
    pool = new pg.Pool({ connectionString: databaseUrl, max: 12, application_name: use === 'api' ? 'nordprop-api' : 'nordprop', options: SESSION_OPTIONS[use] });
    // An idle connection the server closes (restart, pg_terminate_backend, a dropped database)
    // is an error event on the pool: without a listener it would crash the whole process.
    // The pool discards that client; the next query opens a new one or fails on its own.
    pool.on('error', (error) => console.warn(`nordprop: idle database connection lost: ${error.message}`));
    pools.set(key, pool);
  }
  return pool;
}

export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.end()));
}

export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
