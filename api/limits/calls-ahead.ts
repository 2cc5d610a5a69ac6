import { DAILY_LIMIT_MARGIN, type CallBatcher, type CallCount, type CountRequest } from './call-counter.js';

/** At most this many calls of one subject answered by this process and not yet written to the store. */
export const OWED_CAP = 32;
/** Owed calls are written at most this long after the first of them was answered. */
export const OWED_WRITE_MS = 25;
/** What a count told of a subject's limits is used this long (and within its rate window) at most. */
export const KNOWN_FOR_MS = 50;

/** What this process last learned of a client's limits from a count in the store. */
interface Known {
  learnedAt: number;
  /** The rate window (its start in ms divided by its length) the count was made in. */
  window: number;
  burstRemaining: number;
  dailyRemaining: number;
  dailyResetS: number;
}

/**
 * Reads of a client far from both of its limits are answered without a count in the store per
 * call: they are counted later, in groups. The store's count (api_count_requests) writes and reads
 * rows that every call of the client shares; per call it cost PostgreSQL about half of what the
 * lookup it guards did (docs/api.md), and it was most of the gap between the API and a bare
 * server running the same SQL.
 *
 * A call is admitted ahead only while the client's last count in this process, made less than
 * KNOWN_FOR_MS ago in the same rate window, left at least DAILY_LIMIT_MARGIN calls of the window
 * and of the day beyond the calls this process owes. Within that margin of a limit every call is
 * counted before it is answered, one at a time per client, as before. So the limits hold exactly
 * while the client's calls that other API processes answer in KNOWN_FOR_MS, plus what they owe
 * (OWED_CAP each), stay under the margin: with 4 processes, up to about 3,000 of the client's
 * calls a second. Past that, a limit is passed by at most the excess. What a process owes is
 * written with the client's next count, when OWED_CAP is reached, OWED_WRITE_MS after the first
 * owed call, and when the API closes.
 *
 * The price: `callsToday` in another process may miss the calls this one answered in the last
 * OWED_WRITE_MS or so, and a crash of the API process loses what it owed (at most OWED_CAP calls
 * a client), as a PostgreSQL crash already loses the last fraction of a second of counts
 * (synchronous_commit is off for them).
 */
export class CallsAhead {
  private readonly known = new Map<string, Known>();
  private readonly owed = new Map<string, { request: CountRequest; calls: number }>();
  /** Calls taken from `owed` into counts whose answers have not come yet. */
  private readonly inFlight = new Map<string, number>();
  /** Subjects whose owed calls a write (writeOwed) has taken and not yet heard back about. */
  private readonly writingSubjects = new Map<string, Promise<void>>();
  private writeTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Calls answered ahead of their count since the process started (a metric). */
  answeredAheadTotal = 0;
  /** Where a failed write of owed calls is reported (the API's log, app.ts). */
  onError: (error: unknown) => void = () => undefined;

  constructor(private readonly calls: CallBatcher) {}

  /** The call's count if it may be answered now and counted later; undefined when it must be counted first. */
  admit(request: CountRequest): CallCount | undefined {
    const known = this.known.get(request.subject);
    if (!known || !request.client) return undefined;
    const now = Date.now();
    const windowMs = request.burst.windowS * 1000;
    if (now - known.learnedAt > KNOWN_FOR_MS || Math.floor(now / windowMs) !== known.window) {
      this.known.delete(request.subject);
      return undefined;
    }
    const owed = this.owed.get(request.subject);
    const after = (owed?.calls ?? 0) + 1;
    if (after > OWED_CAP || known.burstRemaining - after < DAILY_LIMIT_MARGIN || known.dailyRemaining - after < DAILY_LIMIT_MARGIN) return undefined;
    if (owed) owed.calls = after;
    else this.owed.set(request.subject, { request: withoutOwed(request), calls: 1 });
    this.answeredAheadTotal++;
    this.writeEventually();
    const { dailyCallLimit } = request.client;
    return {
      limit: request.burst.limit,
      remaining: known.burstRemaining - after,
      resetS: Math.max(1, Math.ceil((windowMs * (known.window + 1) - now) / 1000)),
      burstExceeded: false,
      dailyExceeded: false,
      dailyCallLimit,
      callsToday: dailyCallLimit - (known.dailyRemaining - after),
      dailyResetS: known.dailyResetS,
    };
  }

  /** The request to count, carrying the calls this process owes for its subject (they are no longer owed here). */
  withOwed(request: CountRequest): CountRequest {
    const calls = this.take(request.subject);
    return calls > 0 ? { ...request, owed: calls } : request;
  }

  /**
   * What a count in the store said of a request's subject. `taken` is how many of its calls were
   * owed here (withOwed, writeOwed); calls owed since, or taken by counts still running, are not in it.
   */
  learned(request: CountRequest, count: CallCount, taken = request.owed ?? 0): void {
    const inFlight = (this.inFlight.get(request.subject) ?? 0) - taken;
    if (inFlight > 0) this.inFlight.set(request.subject, inFlight);
    else this.inFlight.delete(request.subject);
    const dailyRemaining = request.client && count.callsToday !== undefined ? request.client.dailyCallLimit - count.callsToday : 0;
    // Only a client this process could admit ahead is kept: not one near a limit (a small tier's window is).
    if (count.burstExceeded || count.dailyExceeded || Math.min(count.remaining, dailyRemaining) <= DAILY_LIMIT_MARGIN) {
      this.known.delete(request.subject);
      return;
    }
    if (this.known.size >= 1000) this.forgetStale();
    const now = Date.now();
    this.known.set(request.subject, {
      learnedAt: now,
      window: Math.floor(now / (request.burst.windowS * 1000)),
      burstRemaining: count.remaining - Math.max(0, inFlight),
      dailyRemaining: dailyRemaining - Math.max(0, inFlight),
      dailyResetS: count.dailyResetS,
    });
  }

  /**
   * Calls charged to the subject's day outside any count (a bulk lookup's extra ids, chargeCalls):
   * what this process knows of the day has that many fewer left. Unknown, they took up the margin
   * that stands for the calls of other processes, and the next reads were answered ahead though
   * the day was within the margin of its limit.
   */
  charged(subject: string, calls: number): void {
    const known = this.known.get(subject);
    if (known) known.dailyRemaining -= calls;
  }

  /** A count of the subject failed: nothing more is admitted ahead until a count succeeds. */
  countFailed(request: CountRequest): void {
    this.known.delete(request.subject);
    this.inFlight.delete(request.subject);
  }

  /**
   * Whether a write of the subject's owed calls is still on its way to the store. A count of the
   * subject made meanwhile must go after it (CallBatcher keeps its counts in order): a count made
   * beside it, on another connection (a read that counts in its own statement), may reach the
   * store first, and then neither its answer nor what is learned from it knows which of the two
   * counted those calls. RateLimit-Remaining rose by the calls in the write, then fell by as many
   * more.
   */
  isWriting(subject: string): boolean {
    return this.writingSubjects.has(subject);
  }

  /** Writes every owed call now (when the API closes); resolves once they are in the store. */
  async writeOwed(): Promise<void> {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    const writes = [...this.owed.values()].map(({ request }) => {
      const calls = this.take(request.subject);
      // The last owed call stands for the request itself; the others ride with it.
      const write = this.calls.count({ ...request, owed: calls - 1 }).then(
        (count) => this.learned(request, count, calls),
        (error: unknown) => {
          this.countFailed(request);
          this.onError(error);
        },
      );
      this.writingSubjects.set(request.subject, write);
      void write.finally(() => {
        if (this.writingSubjects.get(request.subject) === write) this.writingSubjects.delete(request.subject);
      });
      return write;
    });
    this.forgetStale();
    this.writing = Promise.all([this.writing, ...writes]).then(() => undefined);
    await this.writing;
  }

  /** Moves the subject's owed calls to a count about to run: until its answer, what is known counts them as used. */
  private take(subject: string): number {
    const owed = this.owed.get(subject);
    if (!owed) return 0;
    this.owed.delete(subject);
    this.inFlight.set(subject, (this.inFlight.get(subject) ?? 0) + owed.calls);
    const known = this.known.get(subject);
    if (known) {
      known.burstRemaining -= owed.calls;
      known.dailyRemaining -= owed.calls;
    }
    return owed.calls;
  }

  private writeEventually(): void {
    if (this.writeTimer) return;
    this.writeTimer = setTimeout(() => void this.writeOwed(), OWED_WRITE_MS);
    this.writeTimer.unref();
  }

  /** Keeps the map of what is known as small as the clients seen in the last moments. */
  private forgetStale(): void {
    const now = Date.now();
    for (const [subject, known] of this.known) {
      if (now - known.learnedAt <= KNOWN_FOR_MS) continue;
      this.known.delete(subject);
      // A count that never reported back (its request was aborted) no longer holds calls back.
      this.inFlight.delete(subject);
    }
  }
}

function withoutOwed(request: CountRequest): CountRequest {
  const { owed: _owed, ...rest } = request;
  return rest;
}
