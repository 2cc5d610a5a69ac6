import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../lib/secrets/secret-box.js';
import { deriveKey } from '../../lib/secrets/master-key.js';
import { call, clientWithToken, get, startApiServer, TEST_MASTER_KEY, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

let api: ApiTest;
let alice: TestClient;
let bob: TestClient;
const SECRET = 'whsec_4f8a1c9e2b7d6f0a3e5c8b1d9f2a7e4c';

beforeAll(async () => {
  api = await startApiTest();
  alice = await clientWithToken(api.db, api.baseUrl, { scopes: ['subscriptions.write'] });
  bob = await clientWithToken(api.db, api.baseUrl, { scopes: ['subscriptions.write'] });
});
afterAll(async () => {
  await api?.stop();
});

const propertyTarget = { kind: 'PROPERTY', country: 'NO', cadastreId: '0301-9001-1-0-0' };
const body = (overrides: Record<string, unknown> = {}) => ({ target: propertyTarget, events: ['OWNER_CHANGED', 'TRANSACTION_REGISTERED'], webhookUrl: 'https://hooks.example.org/nordprop', secret: SECRET, ...overrides });
const create = (client: TestClient, payload: unknown, key: string | null = randomUUID(), baseUrl = api.baseUrl) =>
  call(baseUrl, 'POST', '/subscriptions', { token: client.token, body: payload, headers: key === null ? {} : { 'idempotency-key': key } });

describe('subscriptions', () => {
  it('creates an ACTIVE subscription (201) without ever returning the secret, lists it, deletes it', async () => {
    const created = await create(alice, body());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      target: propertyTarget,
      events: ['OWNER_CHANGED', 'TRANSACTION_REGISTERED'],
      webhookUrl: 'https://hooks.example.org/nordprop',
      status: 'ACTIVE',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(created.headers.get('location')).toBe(`${api.baseUrl}/subscriptions/${created.body.id}`);
    expect(created.text).not.toContain(SECRET);
    const list = await get(api.baseUrl, '/subscriptions', alice.token);
    expect(list.body.items).toEqual([created.body]);
    expect(list.text).not.toContain(SECRET);

    // The store holds the secret encrypted with a key outside the database, not in clear text.
    const stored = await api.db.query(`SELECT secret_encrypted FROM subscription WHERE subscription_id = $1`, [created.body.id]);
    const dump = JSON.stringify((await api.db.query(`SELECT * FROM subscription`)).rows);
    expect(dump).not.toContain(SECRET);
    expect(openSecret(deriveKey(TEST_MASTER_KEY, 'webhook-secret'), stored.rows[0].secret_encrypted)).toBe(SECRET);

    const company = await create(alice, body({ target: { kind: 'COMPANY', scheme: '0192', id: '999888777' }, events: ['TENANT_CHANGED'] }));
    expect(company.status).toBe(201);
    expect(company.body.target).toEqual({ kind: 'COMPANY', scheme: '0192', id: '999888777' });

    const deleted = await call(api.baseUrl, 'DELETE', `/subscriptions/${created.body.id}`, { token: alice.token });
    expect(deleted.status).toBe(204);
    expect((await get(api.baseUrl, '/subscriptions', alice.token)).body.items.map((s: { id: string }) => s.id)).toEqual([company.body.id]);
    expect((await call(api.baseUrl, 'DELETE', `/subscriptions/${created.body.id}`, { token: alice.token })).status).toBe(404);
  });

  it('another tenant’s subscription is 404 and never listed', async () => {
    const mine = await create(alice, body());
    expect((await get(api.baseUrl, '/subscriptions', bob.token)).body.items.map((s: { id: string }) => s.id)).not.toContain(mine.body.id);
    const theirs = await call(api.baseUrl, 'DELETE', `/subscriptions/${mine.body.id}`, { token: bob.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND', type: `${api.baseUrl}/problems/not-found` });
    expect((await get(api.baseUrl, '/subscriptions', alice.token)).body.items.map((s: { id: string }) => s.id)).toContain(mine.body.id);
  });

  it('Idempotency-Key: replay for the same body, 409 for another, 400 when missing; concurrent duplicates create one', async () => {
    const key = randomUUID();
    const first = await create(alice, body({ webhookUrl: 'https://hooks.example.org/replay' }), key);
    // Same body, keys in another order: the same request.
    const { secret, target, events, webhookUrl } = body({ webhookUrl: 'https://hooks.example.org/replay' });
    const replay = await create(alice, { webhookUrl, secret, events, target }, key);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    const conflict = await create(alice, body({ webhookUrl: 'https://hooks.example.org/other' }), key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The same key of another client is that client's own.
    expect((await create(bob, body({ webhookUrl: 'https://hooks.example.org/replay' }), key)).body.id).not.toBe(first.body.id);
    const missing = await create(alice, body(), null);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('IDEMPOTENCY_KEY_MISSING');

    // Ten concurrent requests with one key, over two API processes: one subscription.
    const second = await startApiServer(api.db);
    try {
      const concurrentKey = randomUUID();
      const payload = body({ webhookUrl: 'https://hooks.example.org/concurrent' });
      const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => create(alice, payload, concurrentKey, i % 2 ? second.baseUrl : api.baseUrl)));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
      const rows = await api.db.query(`SELECT count(*)::int AS n FROM subscription WHERE webhook_url = 'https://hooks.example.org/concurrent'`);
      expect(rows.rows[0].n).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('400 for an invalid body; 404 for a target not in the registers', async () => {
    const invalid = [
      body({ webhookUrl: 'http://hooks.example.org/plain-http' }),
      body({ events: [] }),
      body({ events: ['EVERYTHING'] }),
      body({ secret: 'short' }),
      body({ target: { kind: 'PROPERTY', country: 'NO' } }),
      body({ target: { kind: 'BUILDING', id: '1' } }),
      body({ extra: 1 }),
      { target: propertyTarget, events: ['OWNER_CHANGED'], webhookUrl: 'https://hooks.example.org/x' },
    ];
    for (const payload of invalid) {
      const response = await create(alice, payload);
      expect(response.status, JSON.stringify(payload)).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
    const unknownProperty = await create(alice, body({ target: { kind: 'PROPERTY', country: 'NO', cadastreId: '0301-1-1-0-0' } }));
    expect(unknownProperty.status).toBe(404);
    expect((await create(alice, body({ target: { kind: 'COMPANY', scheme: '0192', id: '123456789' } }))).status).toBe(404);
    expect((await call(api.baseUrl, 'DELETE', '/subscriptions/not-a-uuid', { token: alice.token })).status).toBe(400);
  });

  it('refuses (400 WEBHOOK_URL_NOT_ALLOWED, naming why) every URL whose host is a non-public address, in any numeric form', async () => {
    const refused: [string, RegExp][] = [
      ['https://127.0.0.1:8443/', /127\.0\.0\.1 is a loopback address/],
      ['https://[::1]/', /::1 is a loopback address/],
      ['https://169.254.169.254/latest/meta-data/iam/security-credentials/', /169\.254\.169\.254 is a link-local address/],
      ['https://10.0.0.1/', /10\.0\.0\.1 is a private address/],
      ['https://172.16.0.1/', /172\.16\.0\.1 is a private address/],
      ['https://192.168.1.20/', /192\.168\.1\.20 is a private address/],
      ['https://[fd00::1]/', /fd00::1 is a unique-local address/],
      ['https://[fe80::1]/', /fe80::1 is a link-local address/],
      ['https://224.0.0.251/', /224\.0\.0\.251 is a multicast address/],
      ['https://[ff02::1]/', /ff02::1 is a multicast address/],
      ['https://0.0.0.0/', /0\.0\.0\.0 is an unspecified address/],
      ['https://[::]/', /:: is an unspecified address/],
      ['https://100.64.0.1/', /100\.64\.0\.1 is a carrier-grade NAT address/],
      ['https://255.255.255.255/', /255\.255\.255\.255 is the broadcast address/],
      ['https://192.0.2.1/', /192\.0\.2\.1 is a reserved address/],
      ['https://[::ffff:127.0.0.1]/', /::ffff:7f00:1 \(127\.0\.0\.1\) is a loopback address/],
      ['https://[::ffff:a9fe:a9fe]/', /\(169\.254\.169\.254\) is a link-local address/],
      ['https://[64:ff9b::a00:1]/', /64:ff9b::a00:1 is a NAT64 address embedding 10\.0\.0\.1, a private address/],
      ['https://[2002:7f00:1::]/', /2002:7f00:1:: is a 6to4 address embedding 127\.0\.0\.1, a loopback address/],
      ['https://[::127.0.0.1]/', /::7f00:1 is not a global unicast address/],
      ['https://2130706433/', /127\.0\.0\.1 is a loopback address/],
      ['https://0x7f.0.0.1/', /127\.0\.0\.1 is a loopback address/],
      ['https://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
      ['https://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
      ['https://127.1/', /127\.0\.0\.1 is a loopback address/],
      ['https://10.1/', /10\.0\.0\.1 is a private address/],
      ['https://0/', /0\.0\.0\.0 is an unspecified address/],
      ['https://%31%32%37.0.0.1/', /127\.0\.0\.1 is a loopback address/],
      ['https://127.0.0.1./', /127\.0\.0\.1 is a loopback address/],
      ['https://2852039166/', /169\.254\.169\.254 is a link-local address/],
      ['https://', /is not a valid URL/],
      ['https://foo.localhost/', /foo\.localhost is a loopback name/],
    ];
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['subscriptions.write'], burstLimit: 100_000 });
    for (const [webhookUrl, reason] of refused) {
      const response = await create(client, body({ webhookUrl }));
      expect(response.status, webhookUrl).toBe(400);
      expect(response.body, webhookUrl).toMatchObject({ code: 'WEBHOOK_URL_NOT_ALLOWED', status: 400 });
      expect(response.body.detail, webhookUrl).toMatch(reason);
      expect(response.body.detail, webhookUrl).toContain(`webhookUrl ${webhookUrl} is not allowed`);
    }
    expect((await get(api.baseUrl, '/subscriptions', client.token)).body.items).toEqual([]);
    expect((await api.db.query(`SELECT count(*)::int AS n FROM subscription WHERE client_id = $1`, [client.clientId])).rows[0].n).toBe(0);
  });

  it('refuses a host name that resolves to a loopback address (the system resolver’s answer for localhost)', async () => {
    for (const webhookUrl of ['https://localhost/hook', 'https://localhost:8443/hook', 'https://LocalHost./hook']) {
      const response = await create(alice, body({ webhookUrl }));
      expect(response.status, webhookUrl).toBe(400);
      expect(response.body.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
      expect(response.body.detail, webhookUrl).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    }
  });

  it('accepts public addresses (also IPv4-mapped) and names; the operator allows more with NORDPROP_WEBHOOK_ALLOWED_HOSTS', async () => {
    for (const webhookUrl of ['https://93.184.215.14/hook', 'https://[2606:4700:4700::1111]:8443/hook', 'https://[::ffff:93.184.215.14]/hook']) {
      const response = await create(alice, body({ webhookUrl }));
      expect(response.status, `${webhookUrl}: ${response.text}`).toBe(201);
      expect(response.body.webhookUrl).toBe(webhookUrl);
    }
    process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS = '10.20.0.0/16, localhost';
    const operator = await startApiServer(api.db).finally(() => delete process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS);
    try {
      for (const webhookUrl of ['https://10.20.30.40/hook', 'https://localhost:8443/hook']) {
        expect((await create(alice, body({ webhookUrl }), randomUUID(), operator.baseUrl)).status, webhookUrl).toBe(201);
      }
      for (const webhookUrl of ['https://10.21.0.1/hook', 'https://127.0.0.1/hook']) {
        const response = await create(alice, body({ webhookUrl }), randomUUID(), operator.baseUrl);
        expect(response.status, webhookUrl).toBe(400);
        expect(response.body.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
      }
    } finally {
      await operator.close();
    }
  });

  it('caps subscriptions per client at 100 by default: the 101st is 409 SUBSCRIPTION_LIMIT_REACHED naming the limit', async () => {
    const busy = await clientWithToken(api.db, api.baseUrl, { scopes: ['subscriptions.write'], burstLimit: 100_000 });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const created = await create(busy, body({ webhookUrl: `https://hooks.example.org/cap/${i}` }));
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.id);
    }
    const over = await create(busy, body({ webhookUrl: 'https://hooks.example.org/cap/100' }));
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'SUBSCRIPTION_LIMIT_REACHED', status: 409 });
    expect(over.body.detail).toMatch(/\(100\)/);
    expect((await api.db.query(`SELECT count(*)::int AS n FROM subscription WHERE client_id = $1`, [busy.clientId])).rows[0].n).toBe(100);
    // Another client is not limited by this one; a paused subscription counts; deleting one frees a place.
    expect((await create(bob, body({ webhookUrl: 'https://hooks.example.org/cap/bob' }))).status).toBe(201);
    await api.db.query(`UPDATE subscription SET status = 'PAUSED' WHERE subscription_id = $1`, [ids[0]]);
    expect((await create(busy, body({ webhookUrl: 'https://hooks.example.org/cap/100' }))).status).toBe(409);
    expect((await call(api.baseUrl, 'DELETE', `/subscriptions/${ids[1]}`, { token: busy.token })).status).toBe(204);
    expect((await create(busy, body({ webhookUrl: 'https://hooks.example.org/cap/100' }))).status).toBe(201);
    expect((await create(busy, body({ webhookUrl: 'https://hooks.example.org/cap/101' }))).status).toBe(409);
  });

  it('the cap is configurable (NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS) and holds under concurrent creation on two API processes', async () => {
    process.env.NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS = '3';
    const servers = await Promise.all([startApiServer(api.db), startApiServer(api.db)]).finally(() => delete process.env.NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS);
    try {
      const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['subscriptions.write'], burstLimit: 100_000 });
      const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => create(client, body({ webhookUrl: `https://hooks.example.org/small-cap/${i}` }), randomUUID(), servers[i % 2].baseUrl)));
      expect(responses.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
      for (const refused of responses.filter((r) => r.status === 409)) expect(refused.body).toMatchObject({ code: 'SUBSCRIPTION_LIMIT_REACHED', detail: expect.stringContaining('(3)') });
      expect((await api.db.query(`SELECT count(*)::int AS n FROM subscription WHERE client_id = $1`, [client.clientId])).rows[0].n).toBe(3);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });

  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
