import type pg from 'pg';

export interface CallCount {
  /** Requests allowed in the current short window, used there, and seconds until it resets. */
  limit: number;
  remaining: number;
  resetS: number;
  burstExceeded: boolean;
  /** Only for a client: false when the daily call limit is reached (the call was not counted). */
  dailyExceeded: boolean;
  callsToday?: number;
  /** Seconds until 00:00 UTC, when the daily count starts again. */
  dailyResetS: number;
}

/**
 * Counts one request in the subject's short window and, for a client, `calls` calls in its UTC
 * day, in one round trip (api_count_call, schema/1763900000000_api-call-count-shards.sql). Both
 * counts live in the store, so every API process sees the same numbers; they are kept in
 * per-session shards so that concurrent requests of one client do not queue on one row. A
 * request over the burst limit is not counted against the day; a day's count never passes the
 * client's daily limit.
 */
const COUNT_SQL = `SELECT window_calls, reset_s, daily_calls, daily_reset_s FROM api_count_call($1, $2, $3, $4, $5, $6, $7)`;

/**
 * Within this many calls of the daily limit, counting is serialized per client so the limit
 * holds exactly; it only has to exceed the number of a client's requests in flight at once.
 */
const DAILY_LIMIT_MARGIN = 256;

export async function countCall(
  db: pg.Pool,
  subject: string,
  burst: { limit: number; windowS: number },
  client?: { clientId: string; dailyCallLimit: number; calls: number },
): Promise<CallCount> {
  const result = await db.query({ name: 'api-count-call', text: COUNT_SQL, values: [subject, burst.windowS, burst.limit, client?.clientId ?? null, client?.dailyCallLimit ?? 0, client?.calls ?? 1, DAILY_LIMIT_MARGIN] });
  const row = result.rows[0];
  const burstExceeded = row.window_calls > burst.limit;
  if (Math.random() < 0.001) await db.query(`DELETE FROM api_rate_window WHERE window_start < now() - interval '10 minutes'`);
  return {
    limit: burst.limit,
    remaining: Math.max(0, burst.limit - row.window_calls),
    resetS: row.reset_s,
    burstExceeded,
    dailyExceeded: !!client && !burstExceeded && row.daily_calls === null,
    callsToday: row.daily_calls ?? undefined,
    dailyResetS: row.daily_reset_s,
  };
}

/**
 * Adds calls to a client's day without a window (the extra ids of a bulk lookup); false, and
 * nothing counted, when they would pass the daily limit.
 */
export async function chargeCalls(db: pg.Pool, client: { clientId: string; dailyCallLimit: number }, calls: number): Promise<boolean> {
  if (calls <= 0) return true;
  const result = await db.query(`SELECT api_count_daily($1, $2, $3, $4) AS total`, [client.clientId, calls, client.dailyCallLimit, DAILY_LIMIT_MARGIN]);
  return result.rows[0].total !== null;
}

export async function callsToday(db: pg.Pool, clientId: string): Promise<number> {
  const result = await db.query(`SELECT api_calls_today($1) AS calls`, [clientId]);
  return result.rows[0].calls;
}
