import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools, getPool, type PoolUse } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';

describe('getPool', () => {
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
  });
  afterAll(async () => {
    await closePools();
    await drop();
  });

  const settings = async (use: PoolUse) =>
    (await getPool(url, use).query(`SELECT current_setting('max_parallel_workers_per_gather') AS parallel, current_setting('jit') AS jit,
                                           current_setting('plan_cache_mode') AS plans, application_name
                                    FROM pg_stat_activity WHERE pid = pg_backend_pid()`)).rows[0];

  it('gives the API sessions that never plan parallel workers or JIT', async () => {
    expect(await settings('api')).toEqual({ parallel: '0', jit: 'off', plans: 'auto', application_name: 'nordprop-api' });
  });

  it('gives the hot lookups sessions that also always run the generic plan of a prepared statement', async () => {
    expect(await settings('api-lookup')).toEqual({ parallel: '0', jit: 'off', plans: 'force_generic_plan', application_name: 'nordprop-api-lookup' });
  });

  it('leaves the pipeline sessions with the server defaults but JIT', async () => {
    const defaults = (await getPool(url).query(`SELECT boot_val FROM pg_settings WHERE name = 'max_parallel_workers_per_gather'`)).rows[0].boot_val;
    expect(await settings('pipeline')).toMatchObject({ parallel: defaults, jit: 'off', application_name: 'nordprop' });
  });

  it('never JIT-compiles a pipeline statement, however large its estimate (compiling cost more than it saved)', async () => {
    // Ten rows never analyzed: the planner assumes thousands, and their cross product passes
    // jit_above_cost by far, as the night's duplicate check of a few rows did.
    const client = await getPool(url).connect();
    let plan;
    try {
      await client.query(`CREATE TEMP TABLE probe AS SELECT g FROM generate_series(1, 10) g`);
      plan = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(hashtext((a.g * b.g * c.g)::text)) FROM probe a, probe b, probe c`)).rows[0]['QUERY PLAN'][0];
      expect(plan.Plan['Total Cost']).toBeGreaterThan(Number((await client.query(`SELECT current_setting('jit_above_cost') AS c`)).rows[0].c));
    } finally {
      client.release(true);
    }
    expect(plan.JIT).toBeUndefined();
  });

  it('survives the server dropping a connection an activity holds: the holder sees the error, the process lives on', async () => {
    const pool = getPool(url);
    const held = await pool.connect();
    const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const lost = new Promise((resolve) => held.once('end', resolve));
    // What a database restart does to every session: the held client's socket closes under it.
    await getPool(url, 'api').query('SELECT pg_terminate_backend($1)', [pid]);
    await lost;
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(true);
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it('keeps one pool per use', () => {
    expect(getPool(url, 'api')).toBe(getPool(url, 'api'));
    expect(getPool(url, 'api')).not.toBe(getPool(url));
  });
});
