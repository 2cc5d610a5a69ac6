import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../api/secrets/secret-box.js';
import { deriveKey } from '../../api/secrets/master-key.js';
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

  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
