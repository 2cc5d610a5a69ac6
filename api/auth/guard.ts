import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { ApiProblem } from '../problem.js';
import { sendProblem } from '../error-handler.js';
import { countCall, type CountRequest } from '../limits/call-counter.js';
import { applyCount, setRateLimitHeaders, settleDeferredCount } from '../limits/counted-query.js';
import '../request-types.js';

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i;

/**
 * Every request: resolve the bearer token (when the route needs one), count the call in the
 * short window and the client's day, set the RateLimit headers, then answer 429 / 401 / 403
 * before any handler runs. A route marked `countInQuery` counts an allowed call in its first
 * statement instead; if it never gets there, the call is counted as its response is sent.
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
    const count: CountRequest = caller
      ? { subject: `client:${caller.clientId}`, burst: { limit: caller.burstLimit, windowS: caller.burstWindowS }, client: { clientId: caller.clientId, dailyCallLimit: caller.dailyCallLimit, calls: 1 } }
      : { subject: `ip:${request.ip}`, burst: ctx.anonymousBurst };
    const allowed = !authFailure && (access === 'public' || access === 'token' || caller!.scopes.includes(access));
    // A hot read route counts the call in its own statement (limits/counted-query.ts).
    if (allowed && caller && request.routeOptions.config?.countInQuery) {
      request.deferredCount = { request: count, settled: false };
      return;
    }
    applyCount(reply, await countCall(ctx.db, count));
    if (authFailure) {
      throw new ApiProblem(401, 'UNAUTHORIZED', authFailure, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    if (access !== 'public' && access !== 'token' && !caller!.scopes.includes(access)) {
      throw new ApiProblem(403, 'INSUFFICIENT_SCOPE', `this operation needs scope ${access}`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${access}"` });
    }
  });
  app.addHook('onSend', async (request, reply) => settleDeferredCount(ctx.db, request, reply));
}

/** A request the router cannot even read (a broken URL encoding): counted by address, then 400. */
export function rejectUnroutable(ctx: ApiContext, request: FastifyRequest, reply: FastifyReply, problem: ApiProblem): void {
  countCall(ctx.db, { subject: `ip:${request.ip}`, burst: ctx.anonymousBurst })
    .then((count) => setRateLimitHeaders(reply, count))
    .catch((error) => request.log.error({ err: error }, 'counting an unroutable request failed'))
    .finally(() => sendProblem(ctx.baseUrl, problem, request, reply));
}
