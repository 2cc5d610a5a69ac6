import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { ApiProblem } from '../problem.js';
import { countCall, COUNT_ARGUMENTS, countArguments, countOf, sweepOldWindows, type CallCount, type CountRequest } from './call-counter.js';

/**
 * The hot read routes (a coordinate, a property) count the call in the statement that reads the
 * data: one round trip per request instead of two. Under load the database is what limits the
 * API, and a statement of its own per count cost as much as a lookup.
 *
 * The guard, which runs before validation, defers the count of such a request
 * (`request.deferredCount`) when the caller is authenticated and has the scope; the route's
 * first query then goes through `countingQueries`. A request that ends before that query
 * (invalid parameters, unknown country) is counted on its own when its response is sent.
 */

/** What a store function needs of the database: pg.Pool and this module's wrapper both do it. */
export interface Queryable {
  query<R extends pg.QueryResultRow = any>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    deferredCount?: { request: CountRequest; settled: boolean };
  }
}

const FOUND = '__counted_found';
const combined = new Map<string, string>();

/** `SELECT … FROM api_count_call(…)` with the data statement beside it, read only within the limits. */
function combinedSql(text: string): string {
  let sql = combined.get(text);
  if (!sql) {
    const shifted = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + COUNT_ARGUMENTS}`);
    sql = `SELECT c.window_calls, c.reset_s, c.daily_calls, c.daily_reset_s, d.*
FROM api_count_call(${Array.from({ length: COUNT_ARGUMENTS }, (_, i) => `$${i + 1}`).join(', ')}) c
LEFT JOIN LATERAL (
  SELECT true AS ${FOUND}, q.* FROM (${shifted}) q
  WHERE c.window_calls <= $3 AND (c.daily_calls IS NOT NULL OR $4::text IS NULL)
) d ON true`;
    combined.set(text, sql);
  }
  return sql;
}

/**
 * A query runner for one request: its first query also counts the call (setting the RateLimit
 * headers, or throwing 429 without the data); later ones go straight to the pool.
 */
export function countingQueries(db: pg.Pool, request: FastifyRequest, reply: FastifyReply): Queryable {
  return {
    async query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
      const deferred = request.deferredCount;
      if (!deferred || deferred.settled) return db.query<R>(config);
      deferred.settled = true;
      const result = await db.query({
        name: config.name ? `counted:${config.name}` : undefined,
        text: combinedSql(config.text),
        values: [...countArguments(deferred.request), ...(config.values ?? [])],
      });
      await sweepOldWindows(db);
      applyCount(reply, countOf(deferred.request, result.rows[0]));
      const rows = result.rows.filter((row) => row[FOUND]).map((row) => dataOf(row));
      return { ...result, rows: rows as R[], rowCount: rows.length };
    },
  };
}

function dataOf(row: Record<string, unknown>): Record<string, unknown> {
  const { window_calls: _w, reset_s: _r, daily_calls: _d, daily_reset_s: _dr, [FOUND]: _f, ...data } = row;
  return data;
}

export function setRateLimitHeaders(reply: FastifyReply, count: CallCount): void {
  reply.header('RateLimit-Limit', String(count.limit));
  reply.header('RateLimit-Remaining', String(count.remaining));
  reply.header('RateLimit-Reset', String(count.resetS));
}

/** Sets the RateLimit headers and refuses a call over the burst or the daily limit. */
export function applyCount(reply: FastifyReply, count: CallCount): void {
  setRateLimitHeaders(reply, count);
  if (count.burstExceeded) {
    throw new ApiProblem(429, 'RATE_LIMITED', `more than ${count.limit} requests in the current window; retry in ${count.resetS} s`, { 'Retry-After': String(count.resetS) });
  }
  if (count.dailyExceeded) {
    throw new ApiProblem(429, 'DAILY_LIMIT_EXCEEDED', `the daily call limit of ${count.dailyCallLimit} is reached; it resets at 00:00 UTC`, { 'Retry-After': String(count.dailyResetS) });
  }
}

/** A deferred count the route never reached (its request failed first): counted as it is answered. */
export async function settleDeferredCount(db: pg.Pool, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const deferred = request.deferredCount;
  if (!deferred || deferred.settled) return;
  deferred.settled = true;
  setRateLimitHeaders(reply, await countCall(db, deferred.request));
}
