import type { Caller } from './auth/tokens.js';
import type { Scope } from './auth/scopes.js';

/**
 * Who may call a route: `public` (no token), `token` (any valid token, e.g. /auth/me), or the
 * scope it needs. Set as the route's `config.access`.
 */
export type Access = 'public' | 'token' | Scope;

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** The handler counts the call in its read's own statement (api/limits/counted-read.ts, auth/guard.ts countForRead). */
    countsInRead?: boolean;
  }
}

/** The caller of a route that requires a token (set by the guard before any handler runs). */
export function callerOf(request: { caller?: Caller }): Caller {
  if (!request.caller) throw new Error('route without a token requirement asked for its caller');
  return request.caller;
}
