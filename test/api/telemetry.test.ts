import type { FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { closePools, getPool } from '../../lib/db.js';
import { buildApp } from '../../api/app.js';
import { createTestDatabase } from '../support/database.js';
import { call, clientWithToken, freePort, get, loadFixture, TEST_MASTER_KEY, type TestClient } from './support/api-server.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * The API's operations surface: /metrics, one JSON log line per request with its trace id, and
 * the RFC 8414 metadata an OAuth client discovers the token endpoint from. The app is built
 * here (not by startApiTest) because its log lines are the subject: they go to `lines`.
 */
const PROPERTY = '/properties/NO/0301-9001-1-0-0';
const ADDRESS = '/addresses/NO/Fjordgata%2012';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let db: pg.Pool;
let app: FastifyInstance;
let baseUrl: string;
let dropDatabase: () => Promise<void>;
let reader: TestClient;
const lines: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  db = getPool(database.url);
  await loadFixture(db, 'no', 'api-registers.sql');
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  ({ app } = await buildApp({
    db,
    lookups: getPool(database.url, 'api-lookup'),
    config: loadConfig(),
    masterKey: TEST_MASTER_KEY,
    baseUrl,
    logger: true,
    logStream: { write: (line) => void lines.push(line) },
  }));
  await app.listen({ port, host: '127.0.0.1' });
  reader = await clientWithToken(db, baseUrl, { scopes: ['properties.read'] });
});
afterAll(async () => {
  await app?.close();
  await closePools();
  await dropDatabase?.();
});

const requestLines = () => lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');

describe('GET /metrics', () => {
  it('counts requests by route pattern and status, times them, reports the pools, and names no client or property', async () => {
    expect((await get(baseUrl, PROPERTY, reader.token)).status).toBe(200);
    expect((await get(baseUrl, PROPERTY, reader.token)).status).toBe(200);
    expect((await get(baseUrl, '/properties/NO/0301-9001-77-0-0', reader.token)).status).toBe(404);
    expect((await get(baseUrl, PROPERTY)).status).toBe(401);
    expect((await get(baseUrl, ADDRESS, reader.token)).status).toBe(200);
    expect((await get(baseUrl, '/no/such/0301-9001-1-0-0')).status).toBe(404);

    const response = await fetch(`${baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const count = (route: string, status: number) =>
      Number(new RegExp(`^nordprop_http_requests_total\\{method="GET",route="${route.replace(/[{}]/g, '\\$&')}",status="${status}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(count('/properties/{country}/{cadastreId}', 200)).toBe(2);
    expect(count('/properties/{country}/{cadastreId}', 404)).toBe(1);
    expect(count('/properties/{country}/{cadastreId}', 401)).toBe(1);
    expect(count('/addresses/{country}/{address}', 200)).toBe(1);
    expect(count('unmatched', 404)).toBe(1);
    expect(text).toMatch(/^nordprop_http_requests_total\{method="POST",route="\/auth\/token",status="200"\} 1$/m);
    expect(text).toMatch(/^nordprop_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/properties\/\{country\}\/\{cadastreId\}",status="200"\} 2$/m);
    expect(text).toMatch(/^nordprop_http_request_duration_seconds_sum\{method="GET",route="\/properties\/\{country\}\/\{cadastreId\}",status="200"\} [0-9.e-]+$/m);
    for (const pool of ['api', 'api-lookup']) {
      for (const gauge of ['connections', 'idle_connections', 'waiting_requests', 'max_connections']) {
        expect(text).toMatch(new RegExp(`^nordprop_db_pool_${gauge}\\{pool="${pool}"\\} \\d+$`, 'm'));
      }
    }
    expect(text).toMatch(/^nordprop_db_pool_max_connections\{pool="api"\} 12$/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    // Nothing about a client, a property or an address: no client id, secret, token, cadastre id or address text.
    for (const secret of [reader.clientId, reader.clientSecret, reader.token, '0301-9001', 'Fjordgata', '/no/such']) expect(text).not.toContain(secret);
  });
});

describe('one log line per request', () => {
  it('logs method, route pattern, status, duration, client and the traceparent’s trace id, echoed in X-Trace-Id; no path values', async () => {
    const before = requestLines().length;
    const response = await call(baseUrl, 'GET', ADDRESS, { token: reader.token, headers: { traceparent: TRACEPARENT } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-trace-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const logged = requestLines().slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toEqual({
      level: 30,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      pid: process.pid,
      hostname: expect.any(String),
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      method: 'GET',
      route: '/addresses/{country}/{address}',
      status: 200,
      durationMs: expect.any(Number),
      clientId: reader.clientId,
      msg: 'request',
    });
    expect(logged[0].durationMs).toBeGreaterThan(0);
  });

  it('generates a trace id without a valid traceparent, the same in the header, the log and Problem Details; no client id without a token', async () => {
    const before = requestLines().length;
    // Version ff is invalid: a new trace id instead of the header's.
    const response = await call(baseUrl, 'GET', `${PROPERTY}?owner=Kari%20Nordmann`, { headers: { traceparent: 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    expect(response.status).toBe(401);
    const traceId = response.headers.get('x-trace-id');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(response.body.traceId).toBe(traceId);
    const [line] = requestLines().slice(before);
    expect(line).toMatchObject({ traceId, method: 'GET', route: '/properties/{country}/{cadastreId}', status: 401 });
    expect(line).not.toHaveProperty('clientId');
  });

  it('writes no query string, path value, token or body into any line', async () => {
    await call(baseUrl, 'POST', '/properties/NO/lookups', { token: reader.token, body: { cadastreIds: ['0301-9001-1-0-0'] }, headers: { 'idempotency-key': crypto.randomUUID() } });
    const all = lines.join('');
    for (const secret of ['Kari', 'Nordmann', 'Fjordgata', '0301-9001', reader.token, reader.clientSecret]) expect(all).not.toContain(secret);
  });
});

describe('OAuth 2.0 authorization server metadata (RFC 8414)', () => {
  it('serves the token endpoint, grant, client authentication and scopes', async () => {
    const response = await get(baseUrl, '/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      issuer: baseUrl,
      token_endpoint: `${baseUrl}/auth/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'],
      response_types_supported: [],
      service_documentation: `${baseUrl}/docs`,
    });
  });

  it('lets openid-client discover the server from its issuer and obtain a token that works', async () => {
    for (const authentication of [oidc.ClientSecretBasic(reader.clientSecret), oidc.ClientSecretPost(reader.clientSecret)]) {
      // RFC 8414 discovery (algorithm oauth2); plain HTTP is allowed only because this is loopback.
      const server = await oidc.discovery(new URL(baseUrl), reader.clientId, undefined, authentication, { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] });
      expect(server.serverMetadata().token_endpoint).toBe(`${baseUrl}/auth/token`);
      const tokens = await oidc.clientCredentialsGrant(server, { scope: 'properties.read' });
      expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'properties.read', expires_in: 3600 });
      expect((await get(baseUrl, PROPERTY, tokens.access_token)).status).toBe(200);
    }
  });
});

it('every documented response of this file matches the served OpenAPI document', async () => {
  const { document } = await fetchOpenApi(baseUrl);
  expect(document.paths['/.well-known/oauth-authorization-server']).toBeDefined();
  // /metrics is the operators', not the clients' API: not in the description.
  expect(document.paths['/metrics']).toBeUndefined();
  expect(await validateResponses(document, loggedResponses())).toEqual([]);
});
