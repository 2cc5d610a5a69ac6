import type pg from 'pg';
import type { RateWindowSweeper } from './window-sweep.js';

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

/** The rate-limit subject of a client's calls. */
export const clientSubject = (clientId: string) => `client:${clientId}`;

/** One request to count: its rate-limit subject (`client:<id>` or `ip:<address>`) and, for a client, its day. */
export interface CountRequest {
  subject: string;
  burst: { limit: number; windowS: number };
  client?: { clientId: string; dailyCallLimit: number };
  /**
   * Calls of the same subject this process answered earlier without counting them
   * (api/limits/calls-ahead.ts), written with this one. They come first in the count, so that
   * what a limit refuses is this call, not one already answered.
   */
  owed?: number;
}

/**
 * Within this many calls of the daily limit, counting is serialized per client so the limit
 * holds exactly; it only has to exceed the number of a client's calls in flight at once.
 */
export const DAILY_LIMIT_MARGIN = 256;

/** A row of api_count_requests (schema/1763900000000_api-call-count-shards.sql) for a group of one subject's requests. */
export interface CountRow {
  window_calls: number;
  reset_s: number;
  admitted: number;
  daily_charged: number;
  daily_calls: number | null;
  daily_reset_s: number;
}

/** The count of the k-th of `groupSize` requests of one subject that `row` counted together. */
export function callCountOf(row: CountRow, request: CountRequest, k: number, groupSize: number): CallCount {
  const { burst, client } = request;
  const windowBefore = row.window_calls - groupSize;
  const burstExceeded = k >= row.admitted;
  const charged = k < row.daily_charged;
  return {
    limit: burst.limit,
    remaining: Math.max(0, burst.limit - (windowBefore + k + 1)),
    resetS: row.reset_s,
    burstExceeded,
    dailyExceeded: !!client && !burstExceeded && !charged,
    dailyCallLimit: client?.dailyCallLimit,
    // The k-th charged call of the group saw the day's total as it was after it.
    callsToday: client && charged ? row.daily_calls! - (row.daily_charged - 1 - k) : undefined,
    dailyResetS: row.daily_reset_s,
  };
}

/** At most this many requests in one counting statement. */
const MAX_BATCH = 1000;

interface Waiting {
  request: CountRequest;
  resolve(count: CallCount): void;
  reject(error: unknown): void;
}

/**
 * Counts every request of this API process in the store (api_count_requests,
 * schema/1763900000000_api-call-count-shards.sql), so that all processes share the same windows
 * and days and `callsToday` is exact. A count is a write, and a write per request cost the
 * database as much as the lookup it guarded, so counts are committed in groups: while one
 * counting statement runs, the requests arriving meanwhile wait and go together in the next.
 * An idle API counts each request at once (one statement, as before); a busy one writes a
 * fraction of a row per request. Every request is counted before it is answered.
 */
export class CallBatcher {
  private waiting: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly sweeper: RateWindowSweeper,
  ) {}

  count(request: CountRequest): Promise<CallCount> {
    return new Promise<CallCount>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          await this.countBatch(batch);
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async countBatch(batch: Waiting[]): Promise<void> {
    // One row per subject, in subject order: every session then takes its row and advisory
    // locks in the same order, so two batches cannot deadlock.
    const bySubject = new Map<string, Waiting[]>();
    for (const waiting of batch) {
      const list = bySubject.get(waiting.request.subject);
      if (list) list.push(waiting);
      else bySubject.set(waiting.request.subject, [waiting]);
    }
    const subjects = [...bySubject.keys()].sort();
    const firsts = subjects.map((subject) => bySubject.get(subject)![0].request);
    const calls = (request: CountRequest) => 1 + (request.owed ?? 0);
    const groupSizes = subjects.map((subject) => bySubject.get(subject)!.reduce((sum, waiting) => sum + calls(waiting.request), 0));
    const result = await this.db.query({
      name: 'api-count-requests',
      text: `SELECT r.* FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::text[], $6::int[]) WITH ORDINALITY
               AS b(subject, window_s, burst_limit, requests, client_id, daily_limit, i)
             CROSS JOIN LATERAL api_count_requests(b.subject, b.window_s, b.burst_limit, b.requests, b.client_id, b.daily_limit, $7) r
             ORDER BY b.i`,
      values: [
        subjects,
        firsts.map((r) => r.burst.windowS),
        firsts.map((r) => r.burst.limit),
        groupSizes,
        firsts.map((r) => r.client?.clientId ?? null),
        firsts.map((r) => r.client?.dailyCallLimit ?? 0),
        DAILY_LIMIT_MARGIN,
      ],
    });
    subjects.forEach((subject, i) => {
      const requests = bySubject.get(subject)!;
      // Each request's owed calls come just before its own: its own call is the last of its share.
      let position = -1;
      for (const waiting of requests) {
        position += calls(waiting.request);
        waiting.resolve(callCountOf(result.rows[i], waiting.request, position, groupSizes[i]));
      }
    });
    this.sweeper.counted(groupSizes.reduce((sum, size) => sum + size, 0));
  }
}

/**
 * Adds calls to a client's day without a window (the extra ids of a bulk lookup); false, and
 * nothing counted, when they would pass the daily limit. On a transaction's client, the calls are
 * charged only if it commits.
 */
export async function chargeCalls(db: pg.Pool | pg.PoolClient, client: { clientId: string; dailyCallLimit: number }, calls: number): Promise<boolean> {
  if (calls <= 0) return true;
  const result = await db.query(`SELECT charged FROM api_charge_daily($1, $2, $3, $4, false)`, [client.clientId, calls, client.dailyCallLimit, DAILY_LIMIT_MARGIN]);
  return result.rows[0].charged === calls;
}

export async function callsToday(db: pg.Pool, clientId: string): Promise<number> {
  const result = await db.query(`SELECT api_calls_today($1) AS calls`, [clientId]);
  return result.rows[0].calls;
}
