import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Config } from '../lib/config.js';
import { createContext, type ApiContext } from './context.js';
import { clientErrorHandler, lingerOn, registerErrorHandling } from './error-handler.js';
import { registerGuard, rejectUnroutable } from './auth/guard.js';
import { registerBodyParsers, registerCharsetCheck } from './charset-check.js';
import { registerOpenApi } from './openapi.js';
import { createValidatorCompiler, registerTextCheck } from './validation.js';
import { ApiProblem } from './problem.js';
import { VALUE_SCHEMAS } from './schemas/values.js';
import { RESOURCE_SCHEMAS } from './schemas/resources.js';
import { answersPersonalData } from './schemas/operation.js';
import { registerPlatformRoutes } from './routes/platform.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerAddressRoutes } from './routes/addresses.js';
import { registerPropertyRoutes } from './routes/properties.js';
import { registerLookupRoute } from './routes/lookups.js';
import { registerCompanyRoutes } from './routes/companies.js';
import { registerAreaRoutes } from './routes/areas.js';
import { registerSubscriptionRoutes } from './routes/subscriptions.js';
import { registerZoningDocumentRoute } from './routes/zoning-documents.js';
import { registerOpsConsole } from './ops/routes.js';
import { apiLogController, apiLoggerOptions, registerTelemetry, requestLoggerFactory, traceIdOf } from './telemetry/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set for every route whose answer holds personal data (schemas/operation.ts answersPersonalData). */
    personalData?: boolean;
  }
}

export interface AppOptions {
  db: pg.Pool;
  /** The pool of the hot point lookups (lib/db.ts, 'api-lookup'). */
  lookups: pg.Pool;
  config: Config;
  masterKey: Buffer;
  /** Overrides config.api.baseUrl (tests listening on a random port). */
  baseUrl?: string;
  logger?: boolean;
  /** Where the log lines go instead of stdout (tests read them); only with `logger`. */
  logStream?: { write(line: string): void };
}

// JSON bodies are small here (100 ids, a subscription); anything larger is refused with 413.
const BODY_LIMIT = 64 * 1024;

/** The Fastify app of the spec, not listening: `server.ts` listens, tests use inject() or listen(0). */
export async function buildApp(options: AppOptions): Promise<{ app: FastifyInstance; ctx: ApiContext }> {
  const ctx = createContext(options.db, options.lookups, options.config, options.masterKey, options.baseUrl);
  const app = Fastify({
    // One JSON line per request, by api/telemetry (not Fastify's own lines, which hold the raw URL).
    logger: options.logger ? apiLoggerOptions(options.logStream) : false,
    logController: apiLogController(),
    childLoggerFactory: requestLoggerFactory,
    // The W3C traceparent's trace id when the request has one: the log's and Problem Details' traceId.
    genReqId: traceIdOf,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    // An address of 200 characters, percent-encoded, is up to 1800 characters.
    routerOptions: { maxParamLength: 2000 },
    trustProxy: false,
    frameworkErrors: (error, request, reply) => {
      rejectUnroutable(ctx, request, reply, new ApiProblem(400, 'VALIDATION_FAILED', `the request URL is not valid: ${error.message}`));
    },
    // Requests Node's HTTP parser refuses: Problem Details too, written to the socket.
    clientErrorHandler: clientErrorHandler(ctx.baseUrl),
  });
  ctx.windowSweep.onError = (error) => app.log.error({ err: error }, 'deleting old rate windows failed');
  ctx.ahead.onError = (error) => app.log.error({ err: error }, 'counting calls answered ahead of their count failed');
  const shared = [...VALUE_SCHEMAS, ...RESOURCE_SCHEMAS];
  app.setValidatorCompiler(createValidatorCompiler(shared));
  registerBodyParsers(app);
  await registerOpenApi(app, ctx.baseUrl);
  for (const schema of shared) app.addSchema(schema);
  registerErrorHandling(app, ctx.baseUrl);
  registerTelemetry(app, ctx);
  registerGuard(app, ctx);
  registerCharsetCheck(app);
  registerTextCheck(app);
  app.addHook('onRoute', (route) => {
    if (answersPersonalData(route.schema)) route.config = { ...route.config, personalData: true };
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    // Owners, parties to transactions, tenants, the caller's identity: no cache keeps them.
    if (request.routeOptions.config?.personalData) reply.header('Cache-Control', 'no-store');
    // Answered before the body was read (413, 401, 415): the rest of the body is read and dropped
    // (within limits) and the connection kept, so a client still sending reads this answer.
    if (request.raw.complete === false) {
      reply.removeHeader('connection');
      lingerOn(request.raw, request.raw.socket);
    }
    done(null, payload);
  });
  registerPlatformRoutes(app, ctx);
  registerAuthRoutes(app, ctx);
  registerAddressRoutes(app, ctx);
  registerLookupRoute(app, ctx);
  registerPropertyRoutes(app, ctx);
  registerZoningDocumentRoute(app, ctx);
  registerCompanyRoutes(app, ctx);
  registerAreaRoutes(app, ctx);
  registerSubscriptionRoutes(app, ctx);
  registerOpsConsole(app, ctx);
  await app.ready();
  return { app, ctx };
}
