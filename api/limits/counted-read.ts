import { callCountOf, DAILY_LIMIT_MARGIN, type CallCount, type CountRequest } from './call-counter.js';

/**
 * A read that counts its own call in its statement: one round trip instead of two. On this
 * machine a round trip to the store cost about as much CPU as the coordinate lookup's SQL, so
 * the hottest endpoints' counts, a round trip each, were most of the gap between the API and
 * the bare query (BENCHMARKS.md).
 *
 * The statement reads first and counts last (api_count_requests, as the batched count does for
 * one request): the count's rows stay locked until the statement ends, and counting first held
 * them through the read, so sessions that share a count shard (schema/1763900000000_api-call-count-shards.sql)
 * queued behind each other's reads (1,184 against 1,391 lookups/s at 32 connections). A call the
 * count refuses has been read for nothing; its answer is dropped for the 429, and the guard
 * counts that caller's next reads first until its limit resets, so a flood costs counts only.
 *
 * The read's columns come after the count's (prefixed `call_`); NULL when the read found nothing.
 */
export function countedStatement(sql: string, readParameters: number): string {
  const p = (i: number) => `$${readParameters + i}`;
  return `
WITH counted_read AS MATERIALIZED (${sql}),
call AS MATERIALIZED (
  SELECT * FROM api_count_requests(${p(1)}::text, ${p(2)}::int, ${p(3)}::int, ${p(7)}::int, ${p(4)}::text, ${p(5)}::int, ${p(6)}::int)
  WHERE (SELECT count(*) FROM counted_read) >= 0
)
SELECT call.window_calls AS call_window_calls, call.reset_s AS call_reset_s, call.admitted AS call_admitted,
       call.daily_charged AS call_daily_charged, call.daily_calls AS call_daily_calls, call.daily_reset_s AS call_daily_reset_s, counted_read.*
FROM call LEFT JOIN counted_read ON true`;
}

/** The parameters countedStatement appends to the read's own. */
export function countParameters(request: CountRequest): unknown[] {
  return [request.subject, request.burst.windowS, request.burst.limit, request.client?.clientId ?? null, request.client?.dailyCallLimit ?? 0, DAILY_LIMIT_MARGIN, 1 + (request.owed ?? 0)];
}

/** The call's count from a row of a countedStatement (the request's owed calls were counted before it). */
export function countOfRow(row: Record<string, any>, request: CountRequest): CallCount {
  return callCountOf(
    {
      window_calls: row.call_window_calls,
      reset_s: row.call_reset_s,
      admitted: row.call_admitted,
      daily_charged: row.call_daily_charged,
      daily_calls: row.call_daily_calls,
      daily_reset_s: row.call_daily_reset_s,
    },
    request,
    request.owed ?? 0,
    1 + (request.owed ?? 0),
  );
}
