import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { ApiProblem, problemDocument } from '../problem.js';
import { sendProblem } from '../error-handler.js';
import { clientSubject, type CallCount, type CountRequest } from '../limits/call-counter.js';
import '../request-types.js';

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i;

/**
 * Every request: resolve the bearer token (when the route needs one), count the call in the
 * short window and the client's day, set the RateLimit headers, then answer 429 / 401 / 403
 * before any handler's answer leaves.
 *
 * Counting is a round trip to the store. A read of a register (a GET needing a scope the token
 * holds) changes nothing, so its handler runs while the count is in flight and the count is
 * checked before the answer is sent (onSend): a request over its limit still gets only the 429,
 * and each request waits for one round trip instead of two. A route with `config.countsInRead`
 * goes further: its read's own statement counts the call (countForRead, countedRead). A read of a
 * client far from its limits is not counted per call at all: it is answered now and counted in a
 * group later (api/limits/calls-ahead.ts). Anything that writes, answers about the count itself
 * (/auth/me) or has no valid token is counted first, with the calls this process owes.
 */
export function registerGuard(app: FastifyInstance, ctx: ApiContext): void {
  const throttled = new ThrottledSubjects();
  // Calls answered ahead of their count are written before the store's pools close.
  app.addHook('onClose', () => ctx.ahead.writeOwed());
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config?.access ?? 'public';
    let authFailure: string | undefined;
    if (access !== 'public') {
      const match = BEARER.exec(request.headers.authorization ?? '');
      if (!match) authFailure = 'a bearer token is required (Authorization: Bearer <token>)';
      else {
        request.caller = await ctx.tokens.resolve(match[1]);
        if (!request.caller) authFailure = 'the bearer token is unknown or expired';
      }
    }
    const caller = request.caller;
    let countRequest: CountRequest = caller
      ? { subject: clientSubject(caller.clientId), burst: { limit: caller.burstLimit, windowS: caller.burstWindowS }, client: { clientId: caller.clientId, dailyCallLimit: caller.dailyCallLimit } }
      : anonymous(ctx, request);
    const scoped = access !== 'public' && access !== 'token';
    if (scoped && request.method === 'GET' && caller?.scopes.includes(access) && !throttled.holds(countRequest.subject)) {
      // Far from its limits, the call is answered now and counted later with others (api/limits/calls-ahead.ts).
      const ahead = ctx.ahead.admit(countRequest);
      if (ahead) {
        pendingCounts.set(request, { countRequest, counting: Promise.resolve(ahead) });
        return;
      }
      const pending: PendingCount = { countRequest: ctx.ahead.withOwed(countRequest) };
      // A route that counts in its read's own statement reports the count (countedRead); the others' starts now.
      // So does every read while requests wait for a pooled lookup connection: then the batched
      // counts, one write for many requests, cost the saturated store less than a write per request.
      // And a read of a subject whose owed calls are being written: the batch counts it after them.
      const countNowInBatch = !request.routeOptions.config?.countsInRead || ctx.lookups.waitingCount > 0 || ctx.ahead.isWriting(countRequest.subject);
      if (countNowInBatch) pending.counting = countNow(ctx, pending.countRequest);
      pendingCounts.set(request, pending);
      return;
    }
    countRequest = ctx.ahead.withOwed(countRequest);
    const count = await countNow(ctx, countRequest);
    setRateLimitHeaders(reply, count);
    const overLimit = limitProblem(count);
    if (overLimit) {
      throttled.until(countRequest.subject, Number(overLimit.headers['Retry-After']));
      throw overLimit;
    }
    if (authFailure) {
      throw new ApiProblem(401, 'UNAUTHORIZED', authFailure, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    if (scoped && !caller!.scopes.includes(access)) {
      throw new ApiProblem(403, 'INSUFFICIENT_SCOPE', `this operation needs scope ${access}`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${access}"` });
    }
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const pending = pendingCounts.get(request);
    if (!pending) return payload;
    pendingCounts.delete(request);
    // Not counted yet: a route that counts in its read failed before reading (a malformed id, say).
    const count = await (pending.counting ?? countNow(ctx, pending.countRequest));
    setRateLimitHeaders(reply, count);
    const overLimit = limitProblem(count);
    if (!overLimit) return payload;
    throttled.until(pending.countRequest.subject, Number(overLimit.headers['Retry-After']));
    // The answer read meanwhile is dropped: the client sees the 429 it would have seen first.
    if (payload instanceof Readable) payload.destroy();
    for (const [name, value] of Object.entries(overLimit.headers)) reply.header(name, value);
    reply.code(overLimit.status).type('application/problem+json').removeHeader('content-length');
    return JSON.stringify(problemDocument(ctx.baseUrl, overLimit, request));
  });
}

interface PendingCount {
  countRequest: CountRequest;
  counting?: Promise<CallCount>;
}

/** Counts of reads answered while they were in flight (a WeakMap: nothing to clean after an aborted request). */
const pendingCounts = new WeakMap<FastifyRequest, PendingCount>();

/** Counts the call in the store now (with what this process owed for its subject) and remembers what the count said. */
function countNow(ctx: ApiContext, countRequest: CountRequest): Promise<CallCount> {
  const counting = ctx.calls.count(countRequest).then(
    (count) => {
      ctx.ahead.learned(countRequest, count);
      return count;
    },
    (error: unknown) => {
      ctx.ahead.countFailed(countRequest);
      throw error;
    },
  );
  counting.catch(() => undefined); // awaited by the caller; this only keeps an early failure of a started count from being "unhandled"
  return counting;
}

/**
 * For a route with `config.countsInRead`: the count its read's statement is to make
 * (api/limits/counted-read.ts), or undefined when the guard counted the call already (a caller
 * last seen over its limit). The read reports the result with countedRead.
 */
export function countForRead(request: FastifyRequest): CountRequest | undefined {
  const pending = pendingCounts.get(request);
  return pending && !pending.counting ? pending.countRequest : undefined;
}

export function countedRead(ctx: ApiContext, request: FastifyRequest, count: CallCount): void {
  const pending = pendingCounts.get(request);
  if (!pending) throw new Error('countedRead without a count to make (countForRead gave none)');
  pending.counting = Promise.resolve(count);
  ctx.windowSweep.counted(1 + (pending.countRequest.owed ?? 0));
  ctx.ahead.learned(pending.countRequest, count);
}

/**
 * Subjects this process last saw over a limit, until it resets. Their reads are counted first
 * again, so a client hammering past its limit costs counts only, not the reads it will not get.
 */
class ThrottledSubjects {
  private readonly resets = new Map<string, number>();

  until(subject: string, seconds: number): void {
    this.resets.set(subject, Date.now() + seconds * 1000);
  }

  holds(subject: string): boolean {
    const reset = this.resets.get(subject);
    if (reset === undefined) return false;
    if (reset > Date.now()) return true;
    this.resets.delete(subject);
    return false;
  }
}

/** The 429 a count calls for, if any: the short window first, then the day. */
function limitProblem(count: CallCount): ApiProblem | undefined {
  if (count.burstExceeded) {
    return new ApiProblem(429, 'RATE_LIMITED', `more than ${count.limit} requests in the current window; retry in ${count.resetS} s`, { 'Retry-After': String(count.resetS) });
  }
  if (count.dailyExceeded) {
    return new ApiProblem(429, 'DAILY_LIMIT_EXCEEDED', `the daily call limit of ${count.dailyCallLimit} is reached; it resets at 00:00 UTC`, { 'Retry-After': String(count.dailyResetS) });
  }
  return undefined;
}

const anonymous = (ctx: ApiContext, request: FastifyRequest): CountRequest => ({ subject: `ip:${request.ip}`, burst: ctx.anonymousBurst });

export function setRateLimitHeaders(reply: FastifyReply, count: CallCount): void {
  reply.header('RateLimit-Limit', String(count.limit));
  reply.header('RateLimit-Remaining', String(count.remaining));
  reply.header('RateLimit-Reset', String(count.resetS));
}

/** A request the router cannot even read (a broken URL encoding): counted by address, then 400. */
export function rejectUnroutable(ctx: ApiContext, request: FastifyRequest, reply: FastifyReply, problem: ApiProblem): void {
  ctx.calls
    .count(anonymous(ctx, request))
    .then((count) => setRateLimitHeaders(reply, count))
    .catch((error) => request.log.error({ err: error }, 'counting an unroutable request failed'))
    .finally(() => sendProblem(ctx.baseUrl, problem, request, reply));
}
