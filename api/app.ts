import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type pg from 'pg';
import type { Config } from '../lib/config.js';
import { createContext, type ApiContext } from './context.js';
import { registerErrorHandling } from './error-handler.js';
import { registerGuard, rejectUnroutable } from './auth/guard.js';
import { registerCharsetCheck } from './charset-check.js';
import { registerOpenApi } from './openapi.js';
import { createValidatorCompiler } from './validation.js';
import { ApiProblem } from './problem.js';
import { VALUE_SCHEMAS } from './schemas/values.js';
import { RESOURCE_SCHEMAS } from './schemas/resources.js';
import { registerPlatformRoutes } from './routes/platform.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerAddressRoutes } from './routes/addresses.js';
import { registerPropertyRoutes } from './routes/properties.js';
import { registerLookupRoute } from './routes/lookups.js';
import { registerCompanyRoutes } from './routes/companies.js';
import { registerAreaRoutes } from './routes/areas.js';
import { registerSubscriptionRoutes } from './routes/subscriptions.js';
import { registerZoningDocumentRoute } from './routes/zoning-documents.js';

export interface AppOptions {
  db: pg.Pool;
  /** The pool of the hot point lookups (lib/db.ts, 'api-lookup'). */
  lookups: pg.Pool;
  config: Config;
  masterKey: Buffer;
  /** Overrides config.api.baseUrl (tests listening on a random port). */
  baseUrl?: string;
  logger?: boolean;
}

// JSON bodies are small here (100 ids, a subscription); anything larger is refused with 413.
const BODY_LIMIT = 64 * 1024;

/** The Fastify app of the spec, not listening: `server.ts` listens, tests use inject() or listen(0). */
export async function buildApp(options: AppOptions): Promise<{ app: FastifyInstance; ctx: ApiContext }> {
  const ctx = createContext(options.db, options.lookups, options.config, options.masterKey, options.baseUrl);
  const app = Fastify({
    // Warnings and errors only (with the trace id): a log line per request costs more than some requests.
    logger: options.logger ? { level: 'warn' } : false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    // An address of 200 characters, percent-encoded, is up to 1800 characters.
    routerOptions: { maxParamLength: 2000 },
    trustProxy: false,
    frameworkErrors: (error, request, reply) => {
      rejectUnroutable(ctx, request, reply, new ApiProblem(400, 'VALIDATION_FAILED', `the request URL is not valid: ${error.message}`));
    },
  });
  const shared = [...VALUE_SCHEMAS, ...RESOURCE_SCHEMAS];
  app.setValidatorCompiler(createValidatorCompiler(shared));
  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  await registerOpenApi(app, ctx.baseUrl);
  for (const schema of shared) app.addSchema(schema);
  registerErrorHandling(app, ctx.baseUrl);
  registerGuard(app, ctx);
  registerCharsetCheck(app);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('X-Content-Type-Options', 'nosniff');
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
  await app.ready();
  return { app, ctx };
}
