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
 * day, in one statement. Both counts live in the store, so every API process sees the same
 * numbers. A request over the burst limit is not counted against the day; a day's count never
 * passes the client's daily limit.
 */
const COUNT_SQL = `
WITH w AS (
  INSERT INTO api_rate_window AS r (subject, window_start, calls)
  VALUES ($1::text, to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2::int) * $2::int), 1)
  ON CONFLICT (subject, window_start) DO UPDATE SET calls = r.calls + 1
  RETURNING r.calls, r.window_start
),
d AS (
  INSERT INTO api_daily_calls AS c (client_id, day, calls)
  SELECT $4::text, (clock_timestamp() AT TIME ZONE 'UTC')::date, $6::int
  WHERE $4::text IS NOT NULL AND $6::int <= $5::int AND (SELECT calls FROM w) <= $3::int
  ON CONFLICT (client_id, day) DO UPDATE SET calls = c.calls + $6::int WHERE c.calls + $6::int <= $5::int
  RETURNING c.calls
),
-- Commit without waiting for the WAL flush: a call count is not worth an fsync per request; a
-- crash loses at most the last fraction of a second of counts (wal_writer_delay).
relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)
SELECT w.calls AS window_calls,
       greatest(1, ceil(extract(epoch FROM (w.window_start + make_interval(secs => $2::int)) - clock_timestamp())))::int AS reset_s,
       (SELECT calls FROM d) AS daily_calls,
       ceil(extract(epoch FROM (date_trunc('day', clock_timestamp() AT TIME ZONE 'UTC') + interval '1 day') - (clock_timestamp() AT TIME ZONE 'UTC')))::int AS daily_reset_s
FROM w, relaxed`;

export async function countCall(
  db: pg.Pool,
  subject: string,
  burst: { limit: number; windowS: number },
  client?: { clientId: string; dailyCallLimit: number; calls: number },
): Promise<CallCount> {
  const result = await db.query({ name: 'api-count-call', text: COUNT_SQL, values: [subject, burst.windowS, burst.limit, client?.clientId ?? null, client?.dailyCallLimit ?? 0, client?.calls ?? 1] });
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
  const result = await db.query(
    `INSERT INTO api_daily_calls AS c (client_id, day, calls)
     SELECT $1::text, (clock_timestamp() AT TIME ZONE 'UTC')::date, $2::int WHERE $2::int <= $3::int
     ON CONFLICT (client_id, day) DO UPDATE SET calls = c.calls + $2::int WHERE c.calls + $2::int <= $3::int
     RETURNING c.calls`,
    [client.clientId, calls, client.dailyCallLimit],
  );
  return result.rowCount === 1;
}

export async function callsToday(db: pg.Pool, clientId: string): Promise<number> {
  const result = await db.query(
    `SELECT calls FROM api_daily_calls WHERE client_id = $1 AND day = (clock_timestamp() AT TIME ZONE 'UTC')::date`,
    [clientId],
  );
  return result.rows[0]?.calls ?? 0;
}
