import pg from 'pg';
import { loadConfig } from './config.js';

// Numeric and bigint columns arrive as JS numbers: counts and areas here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

const pools = new Map<string, pg.Pool>();

/**
 * What a pool's sessions serve: the pipeline's set-based work, the API's statements, or the API's
 * hot point lookups (the coordinate and property reads of api/store, one named statement each).
 */
export type PoolUse = 'pipeline' | 'api' | 'api-lookup';

/**
 * Session settings per use (the `-c` options of the connection's startup). The API's statements
 * are index lookups that run in well under a millisecond, but at national size the planner
 * prices the spatial ones (a GiST match it expects to return thousands of rows, each rechecked)
 * above the parallel-query threshold: a coordinate lookup then started a parallel worker, and
 * took 35 ms instead of 0.3. Its sessions never plan parallel workers, nor JIT compilation.
 *
 * The hot lookups' sessions also always run the generic plan of their prepared statements. Left
 * to choose, PostgreSQL planned the coordinate lookup again on every call: the generic plan's
 * estimate for an unknown point is far above a custom plan's, so it never won, though it is the
 * same GiST index plan. Planning was two thirds of the lookup's cost (bare pgbench at national
 * size, 4 connections: 2,078 lookups/s, 5,567 with the generic plan). Only those statements
 * run there: the API's other statements (an address search's trigram patterns) may need the
 * plan of their own values.
 */
const API_OPTIONS = '-c max_parallel_workers_per_gather=0 -c jit=off';
/**
 * The pipeline's sessions notice within seconds that their client died (a worker killed mid
 * publish): PostgreSQL otherwise runs the orphaned statement to its end, holding the publish
 * lock and the live rows the next attempt needs.
 *
 * And they never JIT-compile. Each large publish or derive statement paid 0.3 to 13 s compiling
 * expressions (jsonb_to_recordset, row hashes, regular expressions, edit distances, a valuation's
 * hundred-odd expressions) that run once per row, and gained nothing measurable; and small ones
 * are estimated large: a night's check for duplicates of unchanged lines (1,554 staged rows) was
 * estimated at 44 M, compiled for 0.6 s and ran for 0.1 s, a quarter of no-address's night.
 */
const PIPELINE_OPTIONS = '-c client_connection_check_interval=5000 -c jit=off';
export const SESSION_OPTIONS: Record<PoolUse, string | undefined> = {
  pipeline: PIPELINE_OPTIONS,
  api: API_OPTIONS,
  'api-lookup': `${API_OPTIONS} -c plan_cache_mode=force_generic_plan`,
};

/** One pool per database URL, use and process; activities and CLI verbs share the pipeline's. */
export function getPool(databaseUrl = loadConfig().databaseUrl, use: PoolUse = 'pipeline'): pg.Pool {
  const key = `${use} ${databaseUrl}`;
  let pool = pools.get(key);
  if (!pool) {
    // A stage activity holds two connections (COPY and rejects) and the worker runs four
    // activities at once: room for all of them plus the short ledger queries beside them.
    pool = new pg.Pool({ connectionString: databaseUrl, max: 12, application_name: use === 'pipeline' ? 'nordprop' : `nordprop-${use}`, options: SESSION_OPTIONS[use] });
    // An idle connection the server closes (restart, pg_terminate_backend, a dropped database)
    // is an error event on the pool: without a listener it would crash the whole process.
    // The pool discards that client; the next query opens a new one or fails on its own.
    pool.on('error', (error) => console.warn(`nordprop: idle database connection lost: ${error.message}`));
    // A checked-out client whose server goes away (a restart mid-COPY) emits 'error' too, and the
    // pool listens only while the client is idle: without this listener the worker process died
    // of an unhandled 'error' event. The query in flight rejects with the same error, and the
    // activity holding the client releases it as broken.
    pool.on('connect', (client) => {
      client.on('error', (error) => console.warn(`nordprop: database connection lost: ${error.message}`));
    });
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
    return await inTransaction(client, () => work(client));
  } finally {
    client.release();
  }
}

/** `work` in a transaction on a connection already held (its session's temporary tables stay); rolled back if it fails. */
export async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
