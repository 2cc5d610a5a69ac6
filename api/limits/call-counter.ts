import type pg from 'pg';

export interface CallCount {
  /** Requests allowed in the current short window, used there, and seconds until it resets. */
  limit: number;
  remaining: number;
  resetS: number;
  burstExceeded: boolean;
  /** Only for a client: false when the daily call limit is reached (the call was not counted). */
  dailyExceeded: boolean;
  dailyCallLimit?: number;
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

/** One request to count: its rate-limit subject (`client:<id>` or `ip:<address>`) and, for a client, its day. */
export interface CountRequest {
  subject: string;
  burst: { limit: number; windowS: number };
  client?: { clientId: string; dailyCallLimit: number; calls: number };
}

/** The number of parameters COUNT_SQL takes (a statement that counts and reads puts its own after them). */
export const COUNT_ARGUMENTS = 7;

export function countArguments({ subject, burst, client }: CountRequest): unknown[] {
  return [subject, burst.windowS, burst.limit, client?.clientId ?? null, client?.dailyCallLimit ?? 0, client?.calls ?? 1, DAILY_LIMIT_MARGIN];
}

/** Reads api_count_call's answer. */
export function countOf({ burst, client }: CountRequest, row: { window_calls: number; reset_s: number; daily_calls: number | null; daily_reset_s: number }): CallCount {
  const burstExceeded = row.window_calls > burst.limit;
  return {
    limit: burst.limit,
    remaining: Math.max(0, burst.limit - row.window_calls),
    resetS: row.reset_s,
    burstExceeded,
    dailyExceeded: !!client && !burstExceeded && row.daily_calls === null,
    dailyCallLimit: client?.dailyCallLimit,
    callsToday: row.daily_calls ?? undefined,
    dailyResetS: row.daily_reset_s,
  };
}

export async function countCall(db: pg.Pool, request: CountRequest): Promise<CallCount> {
  const result = await db.query({ name: 'api-count-call', text: COUNT_SQL, values: countArguments(request) });
  await sweepOldWindows(db);
  return countOf(request, result.rows[0]);
}

/** Now and then (one count in a thousand), removes the windows that ended long ago. */
export async function sweepOldWindows(db: pg.Pool): Promise<void> {
  if (Math.random() < 0.001) await db.query(`DELETE FROM api_rate_window WHERE window_start < now() - interval '10 minutes'`);
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
