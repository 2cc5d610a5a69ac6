import client from 'prom-client';
import type pg from 'pg';

/**
 * The API's Prometheus metrics, in a registry of each app's own (a test process builds several
 * apps). Labels are the method, the route pattern and the status, and the pool's name: never a
 * raw URL, a client id or anything from a request's data, so nothing here is about a client or
 * a person, and the number of series is bounded by the routes.
 */
export interface ApiMetrics {
  registry: client.Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** Seconds: the hot lookups answer in about a millisecond, a bulk lookup or a cold search in up to seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counts the metrics read from the API's own parts when scraped. */
export interface CountSources {
  /** Calls answered ahead of their count in the store (api/limits/calls-ahead.ts). */
  callsAnsweredAhead(): number;
}

export function createApiMetrics(pools: Record<string, pg.Pool>, counts: CountSources): ApiMetrics {
  const registry = new client.Registry();
  // Process CPU, memory, event-loop delay, garbage collection: the standard names, unprefixed.
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'nordprop_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'nordprop_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const poolGauge = (name: string, help: string, read: (pool: pg.Pool) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers: [registry],
      collect() {
        for (const [pool, instance] of Object.entries(pools)) this.set({ pool }, read(instance));
      },
    });
  poolGauge('nordprop_db_pool_connections', 'Connections the pool holds (in use and idle)', (pool) => pool.totalCount);
  poolGauge('nordprop_db_pool_idle_connections', 'Connections idle in the pool', (pool) => pool.idleCount);
  poolGauge('nordprop_db_pool_waiting_requests', 'Queries waiting for a connection of the pool', (pool) => pool.waitingCount);
  poolGauge('nordprop_db_pool_max_connections', 'The most connections the pool opens', (pool) => pool.options.max ?? 10);
  new client.Counter({
    name: 'nordprop_api_calls_answered_ahead_total',
    help: 'Calls of clients far from their limits answered before their count reached the store (counted in groups after)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts.callsAnsweredAhead());
    },
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
