import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';

/**
 * A client's calls are charged in its rate-window rows and folded into its day about every two
 * seconds (schema/1764001000000_api-calls-charged-in-windows.sql). Charging the day row on every
 * call left a row version per call that no session could prune while any transaction held an
 * older snapshot, and every later count walked them all.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 5 });
  await pool.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function newClient(dailyCallLimit = 1_000_000): Promise<string> {
  const clientId = `counts-${Math.random().toString(36).slice(2, 10)}`;
  await pool.query(
    `INSERT INTO api_client (client_id, secret_hash, tier, scopes, daily_call_limit, burst_limit, sandbox)
     VALUES ($1, 'unused', 'basic', '{properties.read}', $2, 100000, false)`,
    [clientId, dailyCallLimit],
  );
  return clientId;
}

/** Counts one call of the client as the API does (api/limits/counted-read.ts); returns the count's row. */
async function countCall(
  clientId: string,
  { dailyCallLimit = 1_000_000, windowS = 1, burstLimit = 100_000 } = {},
): Promise<{ admitted: number; daily_charged: number; daily_calls: number }> {
  const result = await pool.query(`SELECT * FROM api_count_requests($1, $2, $3, 1, $4, $5, 256)`, [`client:${clientId}`, windowS, burstLimit, clientId, dailyCallLimit]);
  return result.rows[0];
}

const callsToday = async (clientId: string): Promise<number> => (await pool.query(`SELECT api_calls_today($1) AS calls`, [clientId])).rows[0].calls;

/** Row versions in api_daily_calls, live and dead: none can be pruned while an older snapshot is held. */
const dayRowVersions = async (): Promise<number> =>
  Number((await pool.query(`SELECT tuple_count + dead_tuple_count AS versions FROM pgstattuple('api_daily_calls')`)).rows[0].versions);

describe("a client's call counts", () => {
  it('stay exact across sessions and folds, and write the day rows once per fold, not per call, while an old snapshot is held', async () => {
    const clientId = await newClient();
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      // A long transaction elsewhere (a nightly publish): nothing written from here on can be pruned.
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM api_daily_calls');
      const versionsBefore = await dayRowVersions();
      const started = Date.now();
      let charged = 0;
      // Four sessions counting for a little over three seconds: several windows, several folds.
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (Date.now() - started < 3500) {
            const row = await countCall(clientId);
            charged += row.daily_charged;
            expect(row.daily_calls).toBeLessThanOrEqual(charged + 4);
          }
        }),
      );
      expect(charged).toBeGreaterThan(200);
      expect(await callsToday(clientId)).toBe(charged);
      const seconds = Math.ceil((Date.now() - started) / 1000);
      // At most one fold a second; charging the day row per call wrote one version per call.
      expect((await dayRowVersions()) - versionsBefore).toBeLessThanOrEqual(seconds + 2);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // The closed windows are folded into the day by a later count, and the total stays the same.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const before = await callsToday(clientId);
    await countCall(clientId);
    const { folded } = (await pool.query(`SELECT coalesce(sum(calls), 0)::int AS folded FROM api_daily_calls WHERE client_id = $1`, [clientId])).rows[0];
    expect(folded).toBe(before);
    expect(await callsToday(clientId)).toBe(before + 1);
  });

  it('a count whose window a fold has already passed charges the day row, and is not lost or counted twice', async () => {
    const clientId = await newClient();
    // Hour-long windows: the counts below share one, which the fold then passes.
    const hourly = { windowS: 3600 };
    for (let i = 0; i < 3; i++) await countCall(clientId, hourly);
    // A fold that ran ahead of this session's window (as one does when a count waited on a lock).
    await pool.query(`SELECT api_fold_calls($1, now() + interval '1 hour')`, [clientId]);
    expect(await callsToday(clientId)).toBe(3);
    // A call refused by the burst limit reports the day as it is: the folded window is not counted again.
    expect(await countCall(clientId, { ...hourly, burstLimit: 3 })).toMatchObject({ admitted: 0, daily_charged: 0, daily_calls: 3 });
    expect(await countCall(clientId, hourly)).toMatchObject({ daily_charged: 1, daily_calls: 4 });
    expect(await callsToday(clientId)).toBe(4);
  });

  it('the daily limit holds exactly when it is crossed with calls still in windows', async () => {
    // 300 a day and a margin of 256: the first 44 calls are charged in windows, the rest one at a time in the day rows.
    const clientId = await newClient(300);
    const rows = await Promise.all(Array.from({ length: 400 }, () => countCall(clientId, { dailyCallLimit: 300 })));
    expect(rows.reduce((sum, row) => sum + row.daily_charged, 0)).toBe(300);
    expect(await callsToday(clientId)).toBe(300);
  });

  it('the sweep of old windows keeps the calls not yet folded', async () => {
    const clientId = await newClient();
    await pool.query(
      `INSERT INTO api_rate_window (subject, window_start, shard, calls, charged)
       VALUES ($1, now() - interval '20 minutes', 0, 5, 5), ('ip:192.0.2.1', now() - interval '20 minutes', 0, 7, 0)`,
      [`client:${clientId}`],
    );
    await pool.query(`SELECT api_sweep_rate_windows()`);
    const kept = await pool.query(`SELECT subject FROM api_rate_window WHERE window_start < now() - interval '10 minutes'`);
    expect(kept.rows).toEqual([{ subject: `client:${clientId}` }]);
  });
});
