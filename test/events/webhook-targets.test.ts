import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKey } from '../../lib/secrets/master-key.js';
import { sealSecret } from '../../lib/secrets/secret-box.js';
import { loadDeliverySettings } from '../../events/delivery-settings.js';
import { deliveryWorkflowId, dispatchUndispatched } from '../../events/dispatch.js';
import { call, clientWithToken, loadFixture, startApiServer, TEST_MASTER_KEY, type ApiServer, type TestClient } from '../api/support/api-server.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';

/**
 * Where deliveries may connect, end to end through the real worker and Temporal: a target that
 * passed its subscription check but whose name resolves to a loopback address when the delivery
 * connects (DNS rebinding) is refused at connect time, and no connection reaches the local
 * receiver; an address in the URL that the policy refuses fails the delivery at its first
 * attempt; redirects are not followed. The worker runs without NORDPROP_WEBHOOK_ALLOWED_HOSTS,
 * except where a test sets it to show the same delivery does connect when the operator allows it.
 *
 * The system resolver is replaced for names under `.nordprop.test` only (everything else goes
 * to the real one): that is the resolver both the API's check and the delivery's connection
 * use. The only addresses it answers at delivery time are 127.0.0.1: nothing here sends traffic
 * beyond loopback, whatever the code under test does.
 */

const SECRET = 'whsec_3c9e1f7a2b8d4c6e0f1a3b5d7c9e2f4a';
const PROPERTY = { kind: 'PROPERTY', country: 'NO', cadastreId: '0301-9001-1-0-0' };
const REBIND_HOST = 'rebind.nordprop.test';

let pipeline: TestPipeline;
let api: ApiServer;
let alice: TestClient;
let workDir: string;
let receiver: https.Server;
let port: number;
/** TCP connections that reached the receiver (counted before TLS). */
let connections = 0;
const requests: string[] = [];

const dnsAnswers = new Map<string, string[]>();
const systemLookup = dns.lookup;

function testLookup(this: unknown, hostname: string, options: unknown, callback?: unknown): void {
  let opts = options as dns.LookupOptions | number | undefined;
  let done = callback as (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;
  if (typeof options === 'function') {
    done = options as typeof done;
    opts = {};
  }
  if (!hostname.endsWith('.nordprop.test')) return (systemLookup as (...args: unknown[]) => void).call(dns, hostname, opts, done);
  const lookupOptions: dns.LookupOptions = typeof opts === 'number' ? { family: opts } : (opts ?? {});
  const answer = dnsAnswers.get(hostname);
  process.nextTick(() => {
    if (!answer?.length) return done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
    const addresses = answer.map((address) => ({ address, family: net.isIP(address) }));
    if (lookupOptions.all) done(null, addresses);
    else done(null, addresses[0].address, addresses[0].family);
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-webhook-targets-'));
  const pems = await generate([{ name: 'commonName', value: REBIND_HOST }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: REBIND_HOST }, { type: 7, ip: '127.0.0.1' }] }],
  });
  const caFile = path.join(workDir, 'receiver-cert.pem');
  await writeFile(caFile, pems.cert);
  receiver = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const pathname = new URL(req.url ?? '/', 'https://receiver').pathname;
    requests.push(pathname);
    req.resume();
    req.on('end', () => {
      if (pathname === '/redirect') res.writeHead(307, { location: `https://127.0.0.1:${port}/landed` }).end();
      else res.writeHead(204).end();
    });
  });
  receiver.on('connection', () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;

  (dns as { lookup: unknown }).lookup = testLookup;
  pipeline = await startPipeline({
    NORDPROP_API_MASTER_KEY: TEST_MASTER_KEY.toString('base64'),
    NORDPROP_WEBHOOK_CA_FILE: caFile,
    NORDPROP_WEBHOOK_RETRY_INITIAL_S: '1',
    NORDPROP_WEBHOOK_RETRY_MAX_S: '1',
    NORDPROP_WEBHOOK_RETRY_HORIZON_S: '4',
    NORDPROP_WEBHOOK_TIMEOUT_S: '3',
  });
  delete process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS;
  await loadFixture(pipeline.pool, 'no', 'api-registers.sql');
  api = await startApiServer(pipeline.pool);
  alice = await clientWithToken(pipeline.pool, api.baseUrl, { scopes: ['subscriptions.write'] });
}, 300_000);

afterAll(async () => {
  (dns as { lookup: unknown }).lookup = systemLookup;
  delete process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS;
  await api?.close();
  await pipeline?.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A subscription written straight to the store, as one made before the API checked URLs (or with a since-narrowed allowance) would be. */
async function storedSubscription(webhookUrl: string): Promise<string> {
  const id = randomUUID();
  await pipeline.pool.query(
    `INSERT INTO subscription (subscription_id, client_id, target_kind, target_country, target_cadastre_id, events, webhook_url, secret_encrypted)
     VALUES ($1, $2, 'PROPERTY', 'NO', '0301-9001-1-0-0', '{OWNER_CHANGED}', $3, $4)`,
    [id, alice.clientId, webhookUrl, sealSecret(deriveKey(TEST_MASTER_KEY, 'webhook-secret'), SECRET)],
  );
  return id;
}

/** One change event for the subscription, as the triggers write it; dispatched by the production dispatcher; its delivery workflow's result. */
async function deliverOneEvent(subscriptionId: string): Promise<{ eventId: string; outcome: { outcome: string; attempts: number; error?: string } }> {
  const eventId = randomUUID();
  await pipeline.pool.query(
    `INSERT INTO event_outbox (event_id, subscription_id, event_type, target_kind, country, cadastre_id, changed_field)
     VALUES ($1, $2, 'OWNER_CHANGED', 'PROPERTY', 'NO', '0301-9001-1-0-0', 'owners')`,
    [eventId, subscriptionId],
  );
  await dispatchUndispatched({ db: pipeline.pool, client: pipeline.client, taskQueue: pipeline.taskQueue, retry: loadDeliverySettings().retry });
  const outcome = await pipeline.client.workflow.getHandle(deliveryWorkflowId(eventId)).result();
  return { eventId, outcome };
}

const attemptsOf = async (eventId: string) =>
  (await pipeline.pool.query(`SELECT attempt, status_code, error, outcome FROM webhook_attempt WHERE event_id = $1 ORDER BY attempt`, [eventId])).rows;
const outboxRow = async (eventId: string) =>
  (await pipeline.pool.query(`SELECT status, attempts, last_error, last_status_code FROM event_outbox WHERE event_id = $1`, [eventId])).rows[0];

describe('webhook deliveries connect only to checked addresses', () => {
  let rebindSubscription: string;

  it('a name that passed at subscription time and resolves to 127.0.0.1 at delivery is refused at connect time: no connection, retried, then FAILED', { timeout: 60_000 }, async () => {
    // When subscribing, the name answers a public address: the API's check passes.
    dnsAnswers.set(REBIND_HOST, ['93.184.215.14']);
    const created = await call(api.baseUrl, 'POST', '/subscriptions', {
      token: alice.token,
      headers: { 'idempotency-key': randomUUID() },
      body: { target: PROPERTY, events: ['OWNER_CHANGED'], webhookUrl: `https://${REBIND_HOST}:${port}/hook`, secret: SECRET },
    });
    expect(created.status, created.text).toBe(201);
    rebindSubscription = created.body.id;

    // Then it answers loopback (DNS rebinding), before any delivery.
    dnsAnswers.set(REBIND_HOST, ['127.0.0.1']);
    const before = connections;
    const { eventId, outcome } = await deliverOneEvent(rebindSubscription);
    // The next DNS answer could differ: retried on the normal schedule, never connected.
    expect(outcome).toMatchObject({ outcome: 'FAILED' });
    expect(outcome.attempts).toBeGreaterThanOrEqual(2);
    const attempts = await attemptsOf(eventId);
    expect(attempts).toHaveLength(outcome.attempts);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ status_code: null, outcome: 'RETRY', error: `webhook target refused: ${REBIND_HOST} resolves to 127.0.0.1, a loopback address; no connection made` });
    }
    expect(await outboxRow(eventId)).toMatchObject({ status: 'FAILED', last_error: expect.stringContaining('resolves to 127.0.0.1, a loopback address') });
    expect(connections).toBe(before);
    expect(requests).not.toContain('/hook');
  });

  it('an address in the URL that the policy refuses fails the delivery at its first attempt (it can never succeed), without connecting', { timeout: 60_000 }, async () => {
    const before = connections;
    for (const url of [`https://127.0.0.1:${port}/literal`, `https://2130706433:${port}/literal`, `https://[::ffff:127.0.0.1]:${port}/literal`]) {
      const { eventId, outcome } = await deliverOneEvent(await storedSubscription(url));
      expect(outcome, url).toMatchObject({ outcome: 'FAILED', attempts: 1 });
      expect(await attemptsOf(eventId), url).toEqual([
        { attempt: 1, status_code: null, outcome: 'FAILED', error: expect.stringMatching(/^webhook target refused: .*127\.0\.0\.1.* is a loopback address; no connection made$/) },
      ]);
      expect(await outboxRow(eventId), url).toMatchObject({ status: 'FAILED', attempts: 1 });
    }
    expect(connections).toBe(before);
    expect(requests).not.toContain('/literal');
  });

  it('with NORDPROP_WEBHOOK_ALLOWED_HOSTS=127.0.0.1 (an operator’s private receiver) the same name is delivered', { timeout: 60_000 }, async () => {
    process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS = '127.0.0.1';
    try {
      const before = connections;
      const { eventId, outcome } = await deliverOneEvent(rebindSubscription);
      expect(outcome).toMatchObject({ outcome: 'DELIVERED', attempts: 1, statusCode: 204 });
      expect(await outboxRow(eventId)).toMatchObject({ status: 'DELIVERED', last_status_code: 204 });
      expect(connections).toBeGreaterThan(before);
      expect(requests).toContain('/hook');
    } finally {
      delete process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS;
    }
  });

  it('redirects are not followed, not even to an allowed address: a 3xx is a failed attempt', { timeout: 60_000 }, async () => {
    process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS = '127.0.0.1';
    try {
      const { eventId, outcome } = await deliverOneEvent(await storedSubscription(`https://127.0.0.1:${port}/redirect`));
      expect(outcome).toMatchObject({ outcome: 'FAILED' });
      const attempts = await attemptsOf(eventId);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      for (const attempt of attempts) expect(attempt).toMatchObject({ status_code: 307, outcome: 'RETRY', error: 'HTTP 307' });
      expect(requests.filter((p) => p === '/redirect')).toHaveLength(attempts.length);
      expect(requests).not.toContain('/landed');
    } finally {
      delete process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS;
    }
  });
});
