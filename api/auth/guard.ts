import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { ApiProblem } from '../problem.js';
import { sendProblem } from '../error-handler.js';
import type { CallCount, CountRequest } from '../limits/call-counter.js';
import '../request-types.js';

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i;

/**
 * Every request: resolve the bearer token (when the route needs one), count the call in the
 * short window and the client's day, set the RateLimit headers, then answer 429 / 401 / 403
 * before any handler runs.
 */
export function registerGuard(app: FastifyInstance, ctx: ApiContext): void {
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
    const count = await ctx.calls.count(
      caller
        ? { subject: `client:${caller.clientId}`, burst: { limit: caller.burstLimit, windowS: caller.burstWindowS }, client: { clientId: caller.clientId, dailyCallLimit: caller.dailyCallLimit } }
        : anonymous(ctx, request),
    );
    setRateLimitHeaders(reply, count);
    if (count.burstExceeded) {
      throw new ApiProblem(429, 'RATE_LIMITED', `more than ${count.limit} requests in the current window; retry in ${count.resetS} s`, { 'Retry-After': String(count.resetS) });
    }
    if (count.dailyExceeded) {
      throw new ApiProblem(429, 'DAILY_LIMIT_EXCEEDED', `the daily call limit of ${count.dailyCallLimit} is reached; it resets at 00:00 UTC`, { 'Retry-After': String(count.dailyResetS) });
    }
    if (authFailure) {
      throw new ApiProblem(401, 'UNAUTHORIZED', authFailure, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    if (access !== 'public' && access !== 'token' && !caller!.scopes.includes(access)) {
      throw new ApiProblem(403, 'INSUFFICIENT_SCOPE', `this operation needs scope ${access}`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${access}"` });
    }
  });
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
