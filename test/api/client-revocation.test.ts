import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, deleteClient, disableClient, enableClient, listClients, rotateClientSecret, type IssuedCredentials } from '../../api/auth/clients.js';
import { REVOCATION_CHECK_MS } from '../../api/auth/tokens.js';
import { call, get } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { startSecondApi, type SecondApi } from './support/second-api.js';

/**
 * Disabling, deleting or re-keying a client ends its tokens on every API process within about
 * a second, although each process caches the tokens it has resolved. Two processes here: the
 * test's own API (in this process) and a second one in a process of its own, over the same store.
 */

let api: ApiTest;
let second: SecondApi;
let secondUrl: string;

beforeAll(async () => {
  api = await startApiTest();
  second = await startSecondApi(api);
  secondUrl = second.url;
});
afterAll(async () => {
  await second?.stop();
  await api?.stop();
});

const PROPERTY = '/properties/NO/0301-9001-1-0-0';

async function requestToken(baseUrl: string, clientId: string, clientSecret: string) {
  return call(baseUrl, 'POST', '/auth/token', {
    rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function newClient(): Promise<IssuedCredentials & { token: string }> {
  const issued = await createClient(api.db, { scopes: ['properties.read', 'subscriptions.write'], tier: 'enterprise', sandbox: false });
  const token = await requestToken(api.baseUrl, issued.clientId, issued.clientSecret);
  expect(token.status).toBe(200);
  return { ...issued, token: token.body.access_token };
}

const servers = () => [api.baseUrl, secondUrl];

/** Both processes answer the token; each has it in its cache afterwards. */
async function expectAccepted(token: string): Promise<void> {
  for (const baseUrl of servers()) {
    expect((await get(baseUrl, PROPERTY, token)).status, baseUrl).toBe(200);
    expect((await get(baseUrl, '/auth/me', token)).status, baseUrl).toBe(200);
  }
}

/**
 * Polls both processes until each refuses the token (401 on a read and on /auth/me); how many
 * polls that took. A process answering 200 for longer than a few seconds fails the test.
 */
async function expectRevokedEverywhere(token: string): Promise<void> {
  const deadline = Date.now() + 5 * REVOCATION_CHECK_MS;
  for (const baseUrl of servers()) {
    for (const path of [PROPERTY, '/auth/me']) {
      let status = (await get(baseUrl, path, token)).status;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await get(baseUrl, path, token)).status;
      }
      expect(status, `${baseUrl}${path}`).toBe(401);
    }
  }
  // And it stays refused.
  await new Promise((resolve) => setTimeout(resolve, REVOCATION_CHECK_MS + 100));
  for (const baseUrl of servers()) expect((await get(baseUrl, PROPERTY, token)).status).toBe(401);
}

describe('revoking a client', () => {
  it('disable: its cached tokens stop working on both processes within a second or so, and it gets no new token until enabled', async () => {
    const client = await newClient();
    const other = await newClient();
    await expectAccepted(client.token);
    await expectAccepted(other.token);

    expect(await disableClient(api.db, client.clientId)).toEqual({ clientId: client.clientId, found: true, changed: true });
    await expectRevokedEverywhere(client.token);
    // Another client's cached token is untouched.
    await expectAccepted(other.token);
    for (const baseUrl of servers()) {
      const refused = await requestToken(baseUrl, client.clientId, client.clientSecret);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'invalid_client', error_description: 'the client is disabled' });
    }
    expect((await listClients(api.db)).find((c) => c.clientId === client.clientId)?.disabledAt).toEqual(expect.any(String));
    expect(await disableClient(api.db, client.clientId)).toEqual({ clientId: client.clientId, found: true, changed: false });

    expect(await enableClient(api.db, client.clientId)).toEqual({ clientId: client.clientId, found: true, changed: true });
    const again = await requestToken(secondUrl, client.clientId, client.clientSecret);
    expect(again.status).toBe(200);
    await expectAccepted(again.body.access_token);
    // The token it had before stays revoked.
    for (const baseUrl of servers()) expect((await get(baseUrl, PROPERTY, client.token)).status).toBe(401);
  });

  it('delete: its tokens stop working on both processes, its subscriptions go, and requests in flight fail no one else', async () => {
    const client = await newClient();
    const bystander = await newClient();
    await expectAccepted(client.token);
    const subscription = await call(api.baseUrl, 'POST', '/subscriptions', {
      token: client.token,
      headers: { 'idempotency-key': randomUUID() },
      body: { target: { kind: 'PROPERTY', country: 'NO', cadastreId: '0301-9001-1-0-0' }, events: ['OWNER_CHANGED'], webhookUrl: 'https://93.184.215.14/hook', secret: 'a-signing-secret-of-16' },
    });
    expect(subscription.status).toBe(201);

    // The deleted client's requests and a bystander's, in flight on both processes while it is deleted.
    const inFlight = Array.from({ length: 40 }, (_, i) => get(servers()[i % 2], PROPERTY, i % 4 < 2 ? client.token : bystander.token).then((r) => ({ who: i % 4 < 2 ? 'deleted' : 'bystander', status: r.status })));
    expect(await deleteClient(api.db, client.clientId)).toEqual({ clientId: client.clientId, found: true, changed: true });
    const statuses = await Promise.all(inFlight);
    expect(statuses.filter((s) => s.who === 'bystander').every((s) => s.status === 200)).toBe(true);
    expect(statuses.filter((s) => s.who === 'deleted').every((s) => s.status === 200 || s.status === 401)).toBe(true);

    await expectRevokedEverywhere(client.token);
    expect((await requestToken(api.baseUrl, client.clientId, client.clientSecret)).body.error).toBe('invalid_client');
    expect((await api.db.query(`SELECT count(*)::int AS n FROM subscription WHERE client_id = $1`, [client.clientId])).rows[0].n).toBe(0);
    expect((await listClients(api.db)).map((c) => c.clientId)).not.toContain(client.clientId);
    expect(await deleteClient(api.db, client.clientId)).toEqual({ clientId: client.clientId, found: false, changed: false });
    expect(await enableClient(api.db, client.clientId)).toEqual({ clientId: client.clientId, found: false, changed: false });
    expect(await rotateClientSecret(api.db, client.clientId)).toBeUndefined();
  });

  it('rotate-secret: tokens of the old secret stop working on both processes; the new secret works', async () => {
    const client = await newClient();
    await expectAccepted(client.token);
    const rotated = await rotateClientSecret(api.db, client.clientId);
    expect(rotated).toEqual({ clientId: client.clientId, clientSecret: expect.stringMatching(/^npsk_live_/) });
    expect(rotated!.clientSecret).not.toBe(client.clientSecret);
    await expectRevokedEverywhere(client.token);
    expect((await requestToken(secondUrl, client.clientId, client.clientSecret)).body.error).toBe('invalid_client');
    const fresh = await requestToken(secondUrl, client.clientId, rotated!.clientSecret);
    expect(fresh.status).toBe(200);
    await expectAccepted(fresh.body.access_token);
    // Still accepted once both processes have looked at the revocations again.
    await new Promise((resolve) => setTimeout(resolve, REVOCATION_CHECK_MS + 100));
    await expectAccepted(fresh.body.access_token);
  });

  it('no token issued with the old secret outlives a rotation, even one requested while it happens', async () => {
    const client = await newClient();
    const requests = Array.from({ length: 6 }, (_, i) => requestToken(servers()[i % 2], client.clientId, client.clientSecret));
    const rotated = await rotateClientSecret(api.db, client.clientId);
    const tokens = (await Promise.all(requests)).filter((r) => r.status === 200).map((r) => r.body.access_token as string);
    // Each either was refused or, issued first, is revoked with the others.
    for (const token of [client.token, ...tokens]) await expectRevokedEverywhere(token);
    expect((await requestToken(api.baseUrl, client.clientId, rotated!.clientSecret)).status).toBe(200);
  });
});
