import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ClientCredentials } from 'simple-oauth2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { createClient } from '../../api/auth/clients.js';
import { OWED_WRITE_MS } from '../../api/limits/calls-ahead.js';
import { call, clientWithToken, get, startApiServer, type ApiServer } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

const run = promisify(execFile);
let api: ApiTest;
beforeAll(async () => {
  api = await startApiTest();
});
afterAll(async () => {
  await api?.stop();
});

const PROPERTY = '/properties/NO/0301-9001-1-0-0';
// Inside the fixture parcel of that property.
const COORDINATE = '/coordinates/NO/58.0005/3.0005';

async function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  return call(api.baseUrl, 'POST', '/auth/token', {
    rawBody: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

describe('nordprop clients create', () => {
  it('issues live and sandbox credentials with --json, storing only a slow hash of the secret', async () => {
    const nordprop = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli/main.ts'), ...args], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, DATABASE_URL: (api.db as unknown as { options: { connectionString: string } }).options.connectionString },
      });
      return JSON.parse(stdout);
    };
    const live = await nordprop('clients', 'create', '--scopes', 'properties.read owners.read', '--tier', 'standard', '--json');
    expect(live).toMatchObject({ clientId: expect.stringMatching(/^np_live_[0-9a-f]{20}$/), clientSecret: expect.stringMatching(/^npsk_live_/), tier: 'standard', sandbox: false });
    const sandbox = await nordprop('clients', 'create', '--scopes', 'properties.read', '--tier', 'sandbox', '--sandbox', '--json');
    expect(sandbox).toMatchObject({ clientId: expect.stringMatching(/^np_test_/), clientSecret: expect.stringMatching(/^npsk_test_/), sandbox: true });
    const stored = await api.db.query(`SELECT secret_hash FROM api_client WHERE client_id = $1`, [live.clientId]);
    expect(stored.rows[0].secret_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored.rows[0].secret_hash).not.toContain(live.clientSecret);
    // The secret works at the token endpoint.
    const token = await tokenRequest({ grant_type: 'client_credentials', client_id: live.clientId, client_secret: live.clientSecret });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'properties.read owners.read' });
    const listed = await nordprop('clients', 'list', '--json');
    expect(listed.map((c: { clientId: string }) => c.clientId)).toEqual(expect.arrayContaining([live.clientId, sandbox.clientId]));
  });
});

describe('POST /auth/token', () => {
  it('a standard OAuth 2.0 client library obtains a token, with credentials in the body or as HTTP Basic', async () => {
    const issued = await createClient(api.db, { scopes: ['properties.read', 'areas.read'], tier: 'basic', sandbox: false });
    for (const authorization of ['body', 'header'] as const) {
      const oauth = new ClientCredentials({
        client: { id: issued.clientId, secret: issued.clientSecret },
        auth: { tokenHost: api.baseUrl, tokenPath: '/auth/token' },
        options: { authorizationMethod: authorization },
      });
      const accessToken = await oauth.getToken({ scope: 'properties.read' });
      expect(accessToken.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'properties.read' });
      expect(accessToken.expired()).toBe(false);
      const me = await get(api.baseUrl, '/auth/me', accessToken.token.access_token as string);
      expect(me.body).toMatchObject({ clientId: issued.clientId, scopes: ['properties.read'] });
    }
  });

  it('answers rejected grants with an RFC 6749 5.2 body, not Problem Details', async () => {
    const issued = await createClient(api.db, { scopes: ['properties.read'], tier: 'basic', sandbox: false });
    const cases: [Record<string, string>, number, string][] = [
      [{ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: 'wrong' }, 400, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: 'np_live_unknown', client_secret: issued.clientSecret }, 400, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: issued.clientId }, 400, 'invalid_client'],
      [{ grant_type: 'password', client_id: issued.clientId, client_secret: issued.clientSecret }, 400, 'unsupported_grant_type'],
      [{ client_id: issued.clientId, client_secret: issued.clientSecret }, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret, scope: 'owners.read' }, 400, 'invalid_scope'],
      [{ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret, scope: 'admin.everything' }, 400, 'invalid_scope'],
    ];
    for (const [form, status, error] of cases) {
      const response = await tokenRequest(form);
      expect(response.status, JSON.stringify(form)).toBe(status);
      expect(response.contentType).toMatch(/^application\/json/);
      expect(response.body).toEqual({ error, error_description: expect.any(String) });
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    const basic = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${issued.clientId}:nope`).toString('base64')}` });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe('invalid_client');
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic/);
    const json = await call(api.baseUrl, 'POST', '/auth/token', { body: { grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret } });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
  });
});

describe('bearer tokens and scopes', () => {
  it('401 for a missing, malformed, unknown or expired token; 403 for a missing scope', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['areas.read'] });
    const expiredIssued = await createClient(api.db, { scopes: ['properties.read'], tier: 'basic', sandbox: false });
    const expired = await tokenRequest({ grant_type: 'client_credentials', client_id: expiredIssued.clientId, client_secret: expiredIssued.clientSecret });
    await api.db.query(`UPDATE api_access_token SET expires_at = now() - interval '1 second' WHERE client_id = $1`, [expiredIssued.clientId]);
    const unauthorized = [
      await call(api.baseUrl, 'GET', PROPERTY),
      await call(api.baseUrl, 'GET', PROPERTY, { headers: { authorization: 'Basic abc' } }),
      await call(api.baseUrl, 'GET', PROPERTY, { token: 'npat_not-a-real-token' }),
      await call(api.baseUrl, 'GET', PROPERTY, { token: expired.body.access_token }),
      await call(api.baseUrl, 'GET', '/auth/me', { token: expired.body.access_token }),
    ];
    for (const response of unauthorized) {
      expect(response.status).toBe(401);
      expect(response.contentType).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ type: `${api.baseUrl}/problems/unauthorized`, code: 'UNAUTHORIZED', status: 401, traceId: expect.any(String) });
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const forbidden = await get(api.baseUrl, PROPERTY, client.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', type: `${api.baseUrl}/problems/forbidden`, detail: expect.stringContaining('properties.read') });
    expect((await get(api.baseUrl, '/subscriptions', client.token)).status).toBe(403);
    expect((await get(api.baseUrl, '/companies/0192/999888777/properties', client.token)).status).toBe(403);
    expect((await get(api.baseUrl, '/areas/NO/0301/land-allocations', client.token)).status).toBe(200);
  });

  it('GET /auth/me tells the client, tier, scopes and limit', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'owners.read'], tier: 'standard' });
    const me = await get(api.baseUrl, '/auth/me', client.token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ clientId: client.clientId, tier: 'standard', scopes: ['properties.read', 'owners.read'], dailyCallLimit: 100_000, callsToday: 1 });
  });
});

describe('limits', () => {
  it('callsToday is exact across two API processes counting at once', async () => {
    const second: ApiServer = await startApiServer(api.db);
    try {
      const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 1000 });
      const calls = 40;
      const responses = await Promise.all(
        Array.from({ length: calls }, (_, i) => get(i % 2 ? second.baseUrl : api.baseUrl, PROPERTY, client.token)),
      );
      expect(responses.every((r) => r.status === 200)).toBe(true);
      // Far from its limits, a process may answer calls before it counts them; it writes them within OWED_WRITE_MS.
      await expect.poll(async () => (await api.db.query(`SELECT api_calls_today($1) AS calls`, [client.clientId])).rows[0].calls, { timeout: 20 * OWED_WRITE_MS }).toBe(calls);
      // /auth/me counts itself: the 41st call, then the 42nd, on the other process.
      expect((await get(second.baseUrl, '/auth/me', client.token)).body.callsToday).toBe(calls + 1);
      expect((await get(api.baseUrl, '/auth/me', client.token)).body.callsToday).toBe(calls + 2);
    } finally {
      await second.close();
    }
  });

  it('the daily limit holds exactly when concurrent calls from two processes cross it', async () => {
    // 300 calls a day: the first ones are counted without a lock, the last 256 one at a time.
    const second: ApiServer = await startApiServer(api.db);
    try {
      const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 5000, dailyCallLimit: 300 });
      const statuses: number[] = [];
      for (let round = 0; round < 4; round++) {
        const responses = await Promise.all(
          Array.from({ length: 100 }, (_, i) => get(i % 2 ? second.baseUrl : api.baseUrl, PROPERTY, client.token)),
        );
        statuses.push(...responses.map((r) => r.status));
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(300);
      expect(statuses.filter((s) => s === 429)).toHaveLength(100);
      const count = await api.db.query(`SELECT api_calls_today($1) AS calls`, [client.clientId]);
      expect(count.rows[0].calls).toBe(300);
    } finally {
      await second.close();
    }
  });

  it('a coordinate lookup counts its call in its own statement, and the limits hold as for any read', async () => {
    // Two processes, concurrent calls crossing the daily limit: exactly the limit answered, the rest refused and not counted.
    const second: ApiServer = await startApiServer(api.db);
    try {
      const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 5000, dailyCallLimit: 150 });
      const responses = [];
      for (let round = 0; round < 2; round++) {
        responses.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 ? second.baseUrl : api.baseUrl, COORDINATE, client.token)))));
      }
      const answered = responses.filter((r) => r.status === 200);
      expect(answered).toHaveLength(150);
      expect(answered.every((r) => r.body.property?.cadastreId === '0301-9001-1-0-0')).toBe(true);
      const refused = responses.filter((r) => r.status === 429);
      expect(refused).toHaveLength(50);
      expect(refused.every((r) => r.body.code === 'DAILY_LIMIT_EXCEEDED' && !('property' in r.body))).toBe(true);
      expect(responses.every((r) => r.headers.get('ratelimit-limit') === '5000')).toBe(true);
      const count = await api.db.query(`SELECT api_calls_today($1) AS calls`, [client.clientId]);
      expect(count.rows[0].calls).toBe(150);
    } finally {
      await second.close();
    }
    // A burst: at most the window's limit answered per second, the rest 429 RATE_LIMITED without the data.
    const bursty = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 3 });
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 20 }, () => get(api.baseUrl, COORDINATE, bursty.token)));
    const windows = Math.ceil((Date.now() - started) / 1000) + 1;
    const limited = burst.filter((r) => r.status === 429);
    expect(burst.length - limited.length).toBeLessThanOrEqual(3 * windows);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(limited.every((r) => r.body.code === 'RATE_LIMITED' && Number(r.headers.get('retry-after')) >= 1)).toBe(true);
    // callsToday counts every answered coordinate call, and /auth/me itself.
    const counted = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
    for (let i = 0; i < 3; i++) expect((await get(api.baseUrl, COORDINATE, counted.token)).status).toBe(200);
    expect((await get(api.baseUrl, '/auth/me', counted.token)).body.callsToday).toBe(4);
  });

  it('a burst beyond the window answers 429 with Retry-After; every response carries RateLimit headers', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 3 });
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 20 }, () => get(api.baseUrl, PROPERTY, client.token)));
    const windows = Math.ceil((Date.now() - started) / 1000) + 1;
    for (const response of responses) {
      expect(response.headers.get('ratelimit-limit')).toBe('3');
      expect(Number(response.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    }
    const limited = responses.filter((r) => r.status === 429);
    // At most three requests pass in each one-second window the burst spanned.
    expect(responses.length - limited.length).toBeLessThanOrEqual(3 * windows);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    for (const response of limited) {
      expect(response.body).toMatchObject({ code: 'RATE_LIMITED', type: `${api.baseUrl}/problems/too-many-requests`, status: 429 });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('ratelimit-remaining')).toBe('0');
    }
  });

  it('the daily call limit answers 429 until 00:00 UTC, without counting the refused calls', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], dailyCallLimit: 5 });
    for (let i = 0; i < 5; i++) expect((await get(api.baseUrl, PROPERTY, client.token)).status).toBe(200);
    const refused = await get(api.baseUrl, PROPERTY, client.token);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('DAILY_LIMIT_EXCEEDED');
    const now = new Date();
    const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
    expect(Math.abs(Number(refused.headers.get('retry-after')) - toMidnight)).toBeLessThan(5);
    const count = await api.db.query(`SELECT api_calls_today($1) AS calls`, [client.clientId]);
    expect(count.rows[0].calls).toBe(5);
  });

  it('the catalog and the description are rate limited per address without a token', async () => {
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 400 }, () => get(api.baseUrl, '/health')));
    const windows = Math.ceil((Date.now() - started) / 1000) + 1;
    expect(responses.filter((r) => r.status === 200).length).toBeLessThanOrEqual(50 * windows);
    expect(responses.some((r) => r.status === 429)).toBe(true);
    expect(responses.every((r) => r.headers.get('ratelimit-limit') === '50')).toBe(true);
  });

  it('every response of this file matches the served OpenAPI document', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
