import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pino from 'pino';
import type { ApiContext } from '../context.js';
import { createApiMetrics } from './metrics.js';
import { TRACE_ID_HEADER } from './trace.js';

export { traceIdOf } from './trace.js';

/**
 * The API's logger: pino JSON lines (the logger Fastify ships). The server's own lines are
 * warnings and errors only, as before; each request's logger (requestLoggerFactory) logs `info`
 * too, for its one line (registerTelemetry). Fastify's own request lines are off
 * (apiLogController): they carry the raw URL, and an address search's path is the address.
 */
export function apiLoggerOptions(stream?: { write(line: string): void }): NonNullable<FastifyServerOptions['logger']> {
  return { level: 'warn', timestamp: () => `,"time":"${new Date().toISOString()}"`, stream: stream ?? bufferedStdout() };
}

/** How long a log line may wait on stdout for others to fill a block (LOG_BLOCK_BYTES). */
export const LOG_FLUSH_MS = 1000;
const LOG_BLOCK_BYTES = 4096;

/**
 * Stdout, written a block of lines at a time: once 4 KB gathered, or a second after the last
 * write. Pino's default writes each line as it comes, through libuv's thread pool: under load
 * that was a write and about 1.6 futex calls per request (strace of the API at 4 connections),
 * each a wake-up of another thread, and the API's own CPU per coordinate request was 0.46 ms
 * against 0.435 ms with blocks (median of 5 interleaved runs; docs/api.md, Benchmark). What is
 * held is written when the process exits (pino's exit hook) or is killed by SIGTERM or SIGINT
 * (the API command closes the app, then exits); a SIGKILL loses at most a second of lines.
 */
function bufferedStdout(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BLOCK_BYTES });
  // Flushing a closed stdout throws: a log that cannot be written must not stop the API.
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // nothing to write to
    }
  }, LOG_FLUSH_MS).unref();
  return destination;
}

/** A request's logger: the server's, at `info`, bound to the request's trace id. */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => logger.child(bindings, { ...options, level: 'info' });

/**
 * Fastify's own request lines off (they carry the raw URL; registerTelemetry writes one line
 * instead), and every line of a request labelled with its trace id.
 */
export function apiLogController(): LogController {
  return new LogController({ disableRequestLogging: true, requestIdLogLabel: 'traceId' });
}

/** `/properties/:country/:cadastreId` → `/properties/{country}/{cadastreId}`, the OpenAPI template. */
const routeLabels = new Map<string, string>();
function routeLabel(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  // No route matched (the 404 handler): the raw path may be anything a client typed; it is never a label.
  if (pattern === undefined) return 'unmatched';
  let label = routeLabels.get(pattern);
  if (label === undefined) routeLabels.set(pattern, (label = pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
  return label;
}

/**
 * Per request: the trace id echoed in `X-Trace-Id`; when the answer has left, the request's
 * count and latency in the metrics and one log line (method, route pattern, status, duration,
 * the client's id when it had a valid token, and the trace id). No query string, no path
 * values, no body. And `GET /metrics`, for Prometheus.
 */
export function registerTelemetry(app: FastifyInstance, ctx: ApiContext): void {
  const metrics = createApiMetrics({ api: ctx.db, 'api-lookup': ctx.lookups }, { callsAnsweredAhead: () => ctx.ahead.answeredAheadTotal });
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    reply.header(TRACE_ID_HEADER, request.id);
    done();
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = routeLabel(request);
    const status = reply.statusCode;
    const durationMs = reply.elapsedTime;
    metrics.observe(request.method, route, status, durationMs / 1000);
    // The trace id is the logger's request binding (requestIdLogLabel in app.ts).
    request.log.info({ method: request.method, route, status, durationMs: Math.round(durationMs * 1000) / 1000, clientId: request.caller?.clientId }, 'request');
    done();
  });

  app.get('/metrics', {
    // Open like /health: the metrics hold no client's data (see api/telemetry/metrics.ts and docs/api.md).
    config: { access: 'public' },
    // Operators' endpoint, not part of the clients' API: left out of the OpenAPI description.
    schema: { hide: true },
    handler: async (_request, reply: FastifyReply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  });
}
