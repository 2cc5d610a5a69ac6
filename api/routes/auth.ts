import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { ApiContext } from '../context.js';
import { callerOf } from '../request-types.js';
import { ApiProblem } from '../problem.js';
import { sendProblem } from '../error-handler.js';
import { jsonResponse, operationSchema, rateLimitHeaders, withHeaders } from '../schemas/operation.js';
import { ref } from '../schemas/values.js';
import { hashSecret, verifySecret } from '../auth/secret-hash.js';
import { parseScopes, type Scope } from '../auth/scopes.js';
import { issueToken } from '../auth/tokens.js';
import { GateFull, scryptGate } from '../auth/scrypt-gate.js';
import { callsToday } from '../limits/call-counter.js';
import { basicCredentials } from '../validation.js';

/** An RFC 6749 section 5.2 error: the token endpoint's failures, instead of Problem Details. */
class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

const tokenBody = Type.Object({
  grant_type: { type: 'string', enum: ['client_credentials'] } as const,
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ maxLength: 500 })),
  scope: Type.Optional(Type.String({ maxLength: 500, description: 'Space-delimited scopes; omitted: every scope granted to the client' })),
});
/**
 * The body as the handler may see it: the route attaches a failed validation instead of refusing
 * (RFC 6749 errors, not Problem Details), so any field of the form may be any text or absent.
 */
type TokenBody = Partial<Record<keyof Static<typeof tokenBody>, string>>;

const oauthErrorSchema = {
  type: 'object',
  required: ['error', 'error_description'],
  properties: {
    error: { type: 'string', enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'] },
    error_description: { type: 'string' },
  },
};

// RFC 6749 sections 5.1 and 5.2: no cache keeps a token or a refusal. Fresh objects, as rateLimitHeaders.
const noStoreHeaders = () => ({ 'Cache-Control': { type: 'string', enum: ['no-store'], description: 'No cache may store a token endpoint answer (RFC 6749 section 5.1)' } });

// Verified against when the client id is unknown, so an unknown id takes as long as a wrong secret.
const dummyHash = hashSecret('not-a-client-secret');

/**
 * Failed token requests a client may make per window; past them its token requests are
 * refused (429) without running scrypt until the window ends. Counted in the store
 * (api_token_attempt), so the limit is the same across API processes.
 */
export const TOKEN_FAILURES_PER_CLIENT = 10;
export const TOKEN_FAILURE_WINDOW_S = 60;
/** The scrypt of token requests for unknown client ids waits in one queue of the gate. */
const UNKNOWN_CLIENT_KEY = '(unknown client)';

export function registerAuthRoutes(fastify: FastifyInstance, ctx: ApiContext): void {
  // Request types inferred from the route schemas (schemas/operation.ts).
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/auth/token', {
    config: { access: 'public' },
    attachValidation: true,
    schema: {
      ...operationSchema({
        operationId: 'issueToken',
        summary: 'Issue an access token (OAuth 2.0 client credentials)',
        description:
          'Form-encoded grant_type=client_credentials with client_id and client_secret in the body (or HTTP Basic), and an optional space-delimited scope. Failures answer 400 (401 for HTTP Basic) with an RFC 6749 section 5.2 body, not Problem Details.',
        tags: ['platform'],
        access: 'public',
        ignoreUnknownQuery: true,
        consumes: ['application/x-www-form-urlencoded'],
        body: tokenBody,
        responses: {
          200: withHeaders(
            jsonResponse('An access token', {
              type: 'object',
              required: ['access_token', 'token_type', 'expires_in', 'scope'],
              properties: {
                access_token: { type: 'string' },
                token_type: { type: 'string', enum: ['Bearer'] },
                expires_in: { type: 'integer' },
                scope: { type: 'string' },
              },
            }),
            { ...noStoreHeaders(), Pragma: { type: 'string', enum: ['no-cache'], description: 'For HTTP/1.0 caches (RFC 6749 section 5.1)' } },
          ),
          400: {
            description: 'The grant was rejected (RFC 6749 section 5.2)',
            headers: { ...rateLimitHeaders(), ...noStoreHeaders() },
            content: { 'application/json': { schema: structuredClone(oauthErrorSchema) } },
          },
          401: {
            description: 'Client authentication by HTTP Basic failed (RFC 6749 section 5.2)',
            headers: { ...rateLimitHeaders(), ...noStoreHeaders(), 'WWW-Authenticate': { type: 'string', description: 'Basic realm="nordprop"' } },
            content: { 'application/json': { schema: structuredClone(oauthErrorSchema) } },
          },
        },
      }),
      security: [],
    },
    errorHandler: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof OAuthError) return sendOAuthError(reply, error);
      // Limits and server failures stay Problem Details; RFC 6749 has no error for them.
      const status = error instanceof ApiProblem ? error.status : (error.statusCode ?? 500);
      if (status === 429 || status >= 500) return sendProblem(ctx.baseUrl, error, request, reply);
      // An unreadable body (bad media type or charset, malformed form) is the client's request error.
      return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
    },
    handler: async (request, reply) => {
      if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        throw new OAuthError('invalid_request', 'the token request must be application/x-www-form-urlencoded');
      }
      const body: TokenBody = request.body ?? {};
      if (request.validationError) {
        if (body.grant_type && body.grant_type !== 'client_credentials') throw new OAuthError('unsupported_grant_type', 'only grant_type=client_credentials is supported');
        throw new OAuthError('invalid_request', request.validationError.message);
      }
      const credentials = clientCredentials(request.headers.authorization, body);
      // One statement: the client, and one attempt taken from its failure budget before any scrypt runs.
      const client = await ctx.db.query(
        `SELECT c.client_id, c.secret_hash, c.scopes, c.disabled_at, a.admitted, a.retry_s, a.attempt_window
         FROM api_client c CROSS JOIN LATERAL api_token_attempt(c.client_id, $2, $3) a
         WHERE c.client_id = $1 AND c.deleted_at IS NULL`,
        [credentials.clientId, TOKEN_FAILURES_PER_CLIENT, TOKEN_FAILURE_WINDOW_S],
      );
      const row = client.rows[0];
      if (row && !row.admitted) {
        throw new ApiProblem(429, 'RATE_LIMITED', `more than ${TOKEN_FAILURES_PER_CLIENT} failed token requests for this client within ${TOKEN_FAILURE_WINDOW_S} s; retry in ${row.retry_s} s`, {
          'Retry-After': String(row.retry_s),
        });
      }
      let secretOk: boolean;
      try {
        secretOk = await scryptGate.run(row ? row.client_id : UNKNOWN_CLIENT_KEY, async () => verifySecret(credentials.clientSecret, row?.secret_hash ?? (await dummyHash)));
      } catch (error) {
        if (!(error instanceof GateFull)) throw error;
        throw new ApiProblem(429, 'RATE_LIMITED', 'too many token requests are waiting to be checked; retry in a second', { 'Retry-After': String(error.retryAfterS) });
      }
      const refused = (description: string) =>
        credentials.viaHeader
          ? new OAuthError('invalid_client', description, 401, { 'WWW-Authenticate': 'Basic realm="nordprop"' })
          : new OAuthError('invalid_client', description);
      if (!row || !secretOk) throw refused('unknown client or wrong secret');
      if (row.disabled_at) throw refused('the client is disabled');
      // A verified secret gives its attempt back: the budget counts failures only.
      await ctx.db.query(`SELECT api_token_attempt_passed($1, $2)`, [row.client_id, row.attempt_window]);
      const granted = row.scopes as Scope[];
      let scopes: Scope[] = granted;
      if (body.scope !== undefined) {
        const requested = parseScopes(body.scope);
        const notGranted = requested.scopes.filter((s) => !granted.includes(s));
        if (requested.unknown.length || notGranted.length || !requested.scopes.length) {
          throw new OAuthError('invalid_scope', `scope not granted to this client: ${[...requested.unknown, ...notGranted].join(' ') || '(empty)'}`);
        }
        scopes = requested.scopes;
      }
      const issued = await issueToken(ctx.db, row.client_id, scopes, row.secret_hash);
      // Its secret was replaced, or it was disabled or deleted, since the secret was checked.
      if (!issued) throw refused('unknown client or wrong secret');
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
      return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn, scope: scopes.join(' ') };
    },
  });

  app.get('/auth/me', {
    config: { access: 'token' },
    schema: operationSchema({
      operationId: 'getIdentity',
      summary: 'The caller’s identity and quota',
      description: 'callsToday counts this call too. It is the store’s count: it holds every call this API process answered, and those other API processes answered more than a few hundredths of a second ago.',
      tags: ['platform'],
      access: 'token',
      responses: { 200: jsonResponse('The caller', ref('Identity')) },
    }),
    handler: async (request) => {
      const caller = callerOf(request);
      return { clientId: caller.clientId, tier: caller.tier, scopes: caller.scopes, dailyCallLimit: caller.dailyCallLimit, callsToday: await callsToday(ctx.db, caller.clientId) };
    },
  });
}

/** RFC 6749 2.3.1: HTTP Basic (form-encoded id and secret) or the body, not both. */
function clientCredentials(authorization: string | undefined, body: TokenBody): { clientId: string; clientSecret: string; viaHeader: boolean } {
  const basic = basicCredentials(authorization);
  if (basic) {
    if (body.client_id !== undefined || body.client_secret !== undefined) throw new OAuthError('invalid_request', 'client credentials given both in the header and in the body');
    if (basic === 'malformed') throw new OAuthError('invalid_client', 'malformed HTTP Basic credentials', 401, { 'WWW-Authenticate': 'Basic realm="nordprop"' });
    return { clientId: basic.id, clientSecret: basic.secret, viaHeader: true };
  }
  if (!body.client_id || !body.client_secret) throw new OAuthError('invalid_client', 'client_id and client_secret are required');
  return { clientId: body.client_id, clientSecret: body.client_secret, viaHeader: false };
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.header('Cache-Control', 'no-store');
  return reply.code(error.status).type('application/json').send({ error: error.error, error_description: error.description });
}
