import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HTTP, type CloudEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { generateSample } from '../../sample/generate.js';
import { verifyWebhook } from '../../events/verify-webhook.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../../bench/webhooks-receiver.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runBackfill, runRefresh, sourceOf } from '../support/runs.js';
import { call, clientWithToken, get, startApiServer, TEST_MASTER_KEY, type ApiServer, type TestClient } from '../api/support/api-server.js';

/**
 * End to end, as a subscriber lives it: subscriptions made through the API on a sample
 * property and on a company; a land-register backfill whose input sells the property to the
 * company, then a permits backfill with a new case on it; deliveries by the real worker to a
 * local HTTPS receiver whose self-signed certificate the worker is told to trust (and whose
 * loopback address the operator setting allows). Retry time is compressed by configuration only.
 */

const SECRET = 'whsec_7d1f0c9a4b2e8f6a3c5d9e1b7a2f4c8e';
const OTHER_SECRET = 'whsec_0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d';
const RETRY = { initialS: 1, maxS: 4, horizonS: 15 };
const DOCUMENT = '2026/987654-1/200';

let pipeline: TestPipeline;
let receiver: WebhookReceiver;
let api: ApiServer;
let alice: TestClient;
let workDir: string;
let sampleDir: string;

interface Blad {
  matrikkelenhet: { kommunenummer: string; gardsnummer: number; bruksnummer: number; festenummer?: number; seksjonsnummer?: number };
  hjemmelshavere?: { rettighetshaver: { type: string; organisasjonsnummer?: string; navn: string }; andel: { teller: number; nevner: number } }[];
  overdragelser?: unknown[];
}
const cadastreOf = (b: Blad) => {
  const m = b.matrikkelenhet;
  return `${m.kommunenummer}-${m.gardsnummer}-${m.bruksnummer}-${m.festenummer ?? 0}-${m.seksjonsnummer ?? 0}`;
};

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-webhooks-'));
  receiver = await startWebhookReceiver({
    dir: workDir,
    routes: {
      '/flaky': (n) => (n <= 2 ? 500 : 200),
      '/down': () => 503,
      '/deleted': () => 500,
      '/paused-later': () => 500,
    },
  });
  pipeline = await startPipeline({
    NORDPROP_API_MASTER_KEY: TEST_MASTER_KEY.toString('base64'),
    NORDPROP_WEBHOOK_CA_FILE: receiver.caFile,
    // The receiver listens on loopback, which webhooks may reach only when the operator allows it.
    NORDPROP_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    NORDPROP_WEBHOOK_RETRY_INITIAL_S: String(RETRY.initialS),
    NORDPROP_WEBHOOK_RETRY_MAX_S: String(RETRY.maxS),
    NORDPROP_WEBHOOK_RETRY_HORIZON_S: String(RETRY.horizonS),
    NORDPROP_WEBHOOK_TIMEOUT_S: '3',
  });
  sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: 60, seed: 'webhooks' });
  const loaded = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['no-cadastre', 'no-address', 'no-land-registry', 'no-permits'] });
  expect(loaded.outcome).toBe('succeeded');
  api = await startApiServer(pipeline.pool);
  // The worker names the API's subscription URL in each event's `source`.
  process.env.NORDPROP_API_BASE_URL = api.baseUrl;
  alice = await clientWithToken(pipeline.pool, api.baseUrl, { scopes: ['subscriptions.write'] });
}, 600_000);

afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  delete process.env.NORDPROP_API_BASE_URL;
  await api?.close();
  await pipeline?.stop();
  await receiver?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function subscribe(target: Record<string, string>, events: string[], route: string, secret = SECRET): Promise<string> {
  const created = await call(api.baseUrl, 'POST', '/subscriptions', {
    token: alice.token,
    headers: { 'idempotency-key': crypto.randomUUID() },
    body: { target, events, webhookUrl: receiver.url(route), secret },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** A CloudEvents SDK parse and a Node crypto check of the signature, independent of events/verify-webhook.ts. */
function independentlyVerified(request: ReceivedRequest, secret: string): CloudEvent<any> {
  const header = String(request.headers['service-signature']);
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  expect(match, header).not.toBeNull();
  const [, t, v1] = match!;
  const expected = createHmac('sha256', secret).update(`${t}.${request.rawBody.toString('utf8')}`).digest();
  expect(timingSafeEqual(Buffer.from(v1, 'hex'), expected)).toBe(true);
  expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThanOrEqual(300);
  const event = HTTP.toEvent({ headers: request.headers as Record<string, string>, body: request.rawBody.toString('utf8') });
  return event as CloudEvent<any>;
}

const outboxOf = async (subscriptionId: string) =>
  (await pipeline.pool.query(`SELECT event_id, event_type, status, attempts, run_id, created_at FROM event_outbox WHERE subscription_id = $1 ORDER BY event_type`, [subscriptionId])).rows;

describe('change events delivered as signed CloudEvents webhooks', () => {
  let property: string;
  let otherProperty: string;
  let company: string;
  const subs: Record<string, string> = {};
  let changeRunId: string;
  let changedFile: string;
  /** Attempts /deleted had received when its subscription was deleted. */
  let deletedAt: number;
  /** Attempts /paused-later had received when its subscription was paused. */
  let pausedAt: number;
  let changedPermits: string;

  it('a refresh whose input gives a property a new owner delivers exactly the expected events, verifiable two ways', { timeout: 300_000 }, async () => {
    const lines = (await readFile(path.join(sampleDir, 'Grunnbok_0000_Norge.jsonl'), 'utf8')).trim().split('\n');
    const blads: Blad[] = lines.map((line) => JSON.parse(line));
    const isProperty = (b: Blad) => !b.matrikkelenhet.seksjonsnummer && (b.hjemmelshavere?.length ?? 0) > 0 && b.hjemmelshavere!.every((h) => h.rettighetshaver.type === 'person');
    const candidates = blads.filter(isProperty);
    const visible = (await pipeline.pool.query(`SELECT DISTINCT cadastre_id FROM property WHERE country = 'NO' AND cadastre_id = ANY($1)`, [candidates.map(cadastreOf)])).rows.map((r) => r.cadastre_id);
    const [changed, untouched] = candidates.filter((b) => visible.includes(cadastreOf(b)));
    property = cadastreOf(changed);
    otherProperty = cadastreOf(untouched);
    // The new owner: a company that already holds title elsewhere (so the API knows it).
    const holder = blads.flatMap((b) => b.hjemmelshavere ?? []).find((h) => h.rettighetshaver.type === 'organisasjon')!.rettighetshaver;
    company = holder.organisasjonsnummer!;

    const target = { kind: 'PROPERTY', country: 'NO', cadastreId: property };
    subs.ok = await subscribe(target, ['OWNER_CHANGED', 'TRANSACTION_REGISTERED'], '/ok');
    subs.flaky = await subscribe(target, ['OWNER_CHANGED'], '/flaky');
    subs.down = await subscribe(target, ['OWNER_CHANGED'], '/down');
    subs.deleted = await subscribe(target, ['OWNER_CHANGED'], '/deleted');
    subs.paused = await subscribe(target, ['OWNER_CHANGED'], '/paused');
    subs.pausedLater = await subscribe(target, ['OWNER_CHANGED'], '/paused-later');
    subs.tenants = await subscribe(target, ['TENANT_CHANGED', 'BUILDING_PERMIT_CHANGED'], '/tenants');
    subs.other = await subscribe({ kind: 'PROPERTY', country: 'NO', cadastreId: otherProperty }, ['OWNER_CHANGED', 'TRANSACTION_REGISTERED'], '/other');
    subs.company = await subscribe({ kind: 'COMPANY', scheme: '0192', id: company }, ['OWNER_CHANGED', 'TRANSACTION_REGISTERED', 'BUILDING_PERMIT_CHANGED'], '/company', OTHER_SECRET);
    // The spec has no pause operation; an operator pauses in the store.
    await pipeline.pool.query(`UPDATE subscription SET status = 'PAUSED' WHERE subscription_id = $1`, [subs.paused]);

    // The register's next delivery: the property sold to the company, registered today.
    const sold = {
      ...changed,
      hjemmelshavere: [{ rettighetshaver: holder, andel: { teller: 1, nevner: 1 }, tinglysingsdato: '2026-11-20', dokumentnummer: DOCUMENT }],
      overdragelser: [
        ...(changed.overdragelser ?? []),
        {
          dokumentnummer: DOCUMENT, tinglysingsdato: '2026-11-20', omsetningstype: 'Fritt salg', vederlag: { beløp: 9_850_000, valuta: 'NOK' },
          andel: { teller: 1, nevner: 1 }, kjøpere: [{ rettighetshaver: holder }],
          selgere: changed.hjemmelshavere!.map((h) => ({ rettighetshaver: h.rettighetshaver, andel: h.andel })),
        },
      ],
    };
    const changedDir = path.join(pipeline.dataDir, 'changed');
    await mkdir(changedDir, { recursive: true });
    changedFile = path.join(changedDir, 'Grunnbok_0000_Norge.jsonl');
    await writeFile(changedFile, `${blads.map((b) => JSON.stringify(b === changed ? sold : b)).join('\n')}\n`);

    const published = performance.now();
    const run = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: changedFile });
    changeRunId = run.runId;
    const rejects = (await pipeline.pool.query(`SELECT reason FROM source_reject WHERE run_id = $1`, [run.runId])).rows;
    expect(sourceOf(run, 'no-land-registry'), JSON.stringify(rejects)).toMatchObject({ outcome: 'published', rowsRejected: 0 });

    // The subscriber of /deleted deletes its subscription as soon as a (failed) first attempt arrives.
    await receiver.waitFor(() => receiver.on('/deleted').length >= 1, 30_000, 'a first attempt on /deleted');
    expect((await call(api.baseUrl, 'DELETE', `/subscriptions/${subs.deleted}`, { token: alice.token })).status).toBe(204);
    deletedAt = receiver.on('/deleted').length;
    // Another pauses its subscription after a failed first attempt.
    await receiver.waitFor(() => receiver.on('/paused-later').length >= 1, 30_000, 'a first attempt on /paused-later');
    await pipeline.pool.query(`UPDATE subscription SET status = 'PAUSED' WHERE subscription_id = $1`, [subs.pausedLater]);
    pausedAt = receiver.on('/paused-later').length;

    await receiver.waitFor(() => receiver.on('/ok').length >= 2, 30_000, 'two events on /ok');
    console.log(`publish → first delivery on /ok: ${Math.round(receiver.on('/ok')[0].receivedAt - published)} ms (backfill workflow included)`);
    await receiver.waitFor(() => receiver.on('/company').length >= 2, 30_000, 'two events on /company');
    // Let any duplicate or stray delivery arrive before counting.
    await untilFinishedPolling(subs.ok, 30_000);
    await untilFinishedPolling(subs.company, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const ok = receiver.on('/ok');
    expect(ok).toHaveLength(2);
    const outbox = await outboxOf(subs.ok);
    expect(outbox.map((row) => [row.event_type, row.status, row.attempts, row.run_id])).toEqual([
      ['OWNER_CHANGED', 'DELIVERED', 1, changeRunId],
      ['TRANSACTION_REGISTERED', 'DELIVERED', 1, changeRunId],
    ]);
    const byType = new Map(ok.map((request) => [JSON.parse(request.rawBody.toString()).type as string, request]));
    expect([...byType.keys()].sort()).toEqual(['no.service.property.owner_changed', 'no.service.property.transaction_registered']);

    const ownerRequest = byType.get('no.service.property.owner_changed')!;
    const ownerRow = outbox.find((row) => row.event_type === 'OWNER_CHANGED')!;
    expect(ownerRequest.headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
    // The project's verifier (what docs/webhooks.md tells subscribers to use) ...
    const verified = verifyWebhook<Record<string, unknown>>({ header: ownerRequest.headers['service-signature'], rawBody: ownerRequest.rawBody, secret: SECRET });
    expect(verified).toEqual({
      specversion: '1.0',
      type: 'no.service.property.owner_changed',
      source: `${api.baseUrl}/subscriptions/${subs.ok}`,
      id: ownerRow.event_id,
      time: ownerRow.created_at.toISOString(),
      datacontenttype: 'application/json',
      data: { country: 'NO', cadastreId: property, changedField: 'owners' },
    });
    expect(verified.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    // ... refuses the same request under another secret or with one byte changed ...
    expect(() => verifyWebhook({ header: ownerRequest.headers['service-signature'], rawBody: ownerRequest.rawBody, secret: OTHER_SECRET })).toThrow(/does not match/);
    const tampered = Buffer.from(ownerRequest.rawBody.toString().replace('owners', 'Owners'));
    expect(() => verifyWebhook({ header: ownerRequest.headers['service-signature'], rawBody: tampered, secret: SECRET })).toThrow(/does not match/);
    // ... and the CloudEvents SDK with Node's crypto agree, on both events.
    for (const request of ok) {
      const event = independentlyVerified(request, SECRET);
      expect(event.specversion).toBe('1.0');
      expect(event.source).toBe(`${api.baseUrl}/subscriptions/${subs.ok}`);
      expect(event.datacontenttype).toBe('application/json');
      expect(outbox.map((row) => row.event_id)).toContain(event.id);
      expect(event.data).toMatchObject({ country: 'NO', cadastreId: property });
    }
    expect(independentlyVerified(byType.get('no.service.property.transaction_registered')!, SECRET).data).toEqual({ country: 'NO', cadastreId: property, changedField: 'transactions' });

    // The company became an owner and a buyer: company-targeted events, signed with its subscription's own secret.
    const companyEvents = receiver.on('/company').map((request) => independentlyVerified(request, OTHER_SECRET));
    expect(companyEvents.map((event) => [event.type, event.data]).sort()).toEqual([
      ['no.service.company.owner_changed', { scheme: '0192', id: company, changedField: 'owners' }],
      ['no.service.company.transaction_registered', { scheme: '0192', id: company, changedField: 'transactions' }],
    ]);
    expect(receiver.on('/company')).toHaveLength(2);
  });

  it('nothing for an unchanged property, for event kinds not subscribed to, or for a paused subscription (which is still listed)', async () => {
    expect(receiver.on('/other')).toHaveLength(0);
    expect(await outboxOf(subs.other)).toEqual([]);
    expect(receiver.on('/tenants')).toHaveLength(0);
    expect(receiver.on('/paused')).toHaveLength(0);
    expect(await outboxOf(subs.paused)).toEqual([]);
    const listed = await get(api.baseUrl, '/subscriptions', alice.token);
    expect(listed.body.items.find((s: { id: string }) => s.id === subs.paused)).toMatchObject({ status: 'PAUSED' });
  });

  it('a receiver that fails its first two attempts gets the same event a third time, and it is recorded as delivered', { timeout: 60_000 }, async () => {
    await receiver.waitFor(() => receiver.on('/flaky').length >= 3, 30_000, 'three attempts on /flaky');
    await untilFinishedPolling(subs.flaky, 30_000);
    const attempts = receiver.on('/flaky');
    expect(attempts).toHaveLength(3);
    // One event, redelivered: the same id and the same body bytes, each attempt signed anew.
    expect(new Set(attempts.map((request) => request.rawBody.toString())).size).toBe(1);
    for (const request of attempts) verifyWebhook({ header: request.headers['service-signature'], rawBody: request.rawBody, secret: SECRET });

    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli/main.ts'), 'deliveries', '--subscription', subs.flaky, '--json'], { env: process.env });
    const listing = JSON.parse(stdout);
    expect(listing.subscription).toMatchObject({ id: subs.flaky, status: 'ACTIVE', target: `NO ${property}` });
    expect(listing.items).toHaveLength(1);
    expect(listing.items[0]).toMatchObject({ eventType: 'OWNER_CHANGED', status: 'DELIVERED', attempts: 3, lastStatusCode: 200, runId: changeRunId });
    const recorded = (await pipeline.pool.query(`SELECT attempt, status_code, outcome FROM webhook_attempt WHERE event_id = $1 ORDER BY attempt`, [listing.items[0].eventId])).rows;
    expect(recorded).toEqual([
      { attempt: 1, status_code: 500, outcome: 'RETRY' },
      { attempt: 2, status_code: 500, outcome: 'RETRY' },
      { attempt: 3, status_code: 200, outcome: 'DELIVERED' },
    ]);
  });

  it('a receiver that stays down is retried with growing intervals until the (compressed) horizon, then the delivery is failed', { timeout: 90_000 }, async () => {
    await untilFinishedPolling(subs.down, 60_000);
    const [row] = await outboxOf(subs.down);
    expect(row).toMatchObject({ event_type: 'OWNER_CHANGED', status: 'FAILED' });
    const attempts = (await pipeline.pool.query(`SELECT started_at, status_code, outcome FROM webhook_attempt WHERE event_id = $1 ORDER BY attempt`, [row.event_id])).rows;
    expect(attempts.length).toBe(row.attempts);
    expect(receiver.on('/down')).toHaveLength(attempts.length);
    for (const attempt of attempts) expect(attempt).toMatchObject({ status_code: 503, outcome: 'RETRY' });
    // Waits of 1 s, 2 s, then 4 s (the cap), each ±10% jitter; timers never fire early but may
    // fire late on a busy machine. The last wait is clipped to end at the horizon.
    const gaps = attempts.slice(1).map((a, i) => (a.started_at.getTime() - attempts[i].started_at.getTime()) / 1000);
    console.log(`attempts of an always-down receiver, seconds apart: ${gaps.map((gap) => gap.toFixed(2)).join(', ')}`);
    expect(attempts.length).toBeGreaterThanOrEqual(5);
    const planned = (i: number) => Math.min(RETRY.initialS * 2 ** i, RETRY.maxS);
    gaps.slice(0, -1).forEach((gap, i) => {
      expect(gap, `wait ${i + 1}`).toBeGreaterThanOrEqual(planned(i) * 0.9 - 0.05);
      expect(gap, `wait ${i + 1}`).toBeLessThanOrEqual(planned(i) * 1.1 + 2);
    });
    const span = (attempts.at(-1)!.started_at.getTime() - attempts[0].started_at.getTime()) / 1000;
    expect(span).toBeGreaterThanOrEqual(RETRY.horizonS - 2.5);
    expect(span).toBeLessThanOrEqual(RETRY.horizonS + 3);
  });

  it('deleting a subscription stops its pending delivery before the next attempt, and it gets nothing more', { timeout: 60_000 }, async () => {
    await untilFinishedPolling(subs.deleted, 30_000);
    const [row] = await outboxOf(subs.deleted);
    // Cancelled by the check before the next attempt, long before the retry horizon.
    expect(row).toMatchObject({ status: 'CANCELLED' });
    expect((await pipeline.pool.query(`SELECT last_error FROM event_outbox WHERE event_id = $1`, [row.event_id])).rows[0].last_error).toBe('subscription deleted');
    // An attempt already in flight at the delete may still land; none starts after it.
    expect(receiver.on('/deleted').length).toBeLessThanOrEqual(deletedAt + 1);
    expect(row.attempts).toBe(receiver.on('/deleted').length);

    // The next change of the property reaches the others, never the deleted subscription.
    const okBefore = receiver.on('/ok').length;
    const deletedBefore = receiver.on('/deleted').length;
    const lines = (await readFile(changedFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Blad);
    const again = lines.map((b) => (cadastreOf(b) === property ? { ...b, hjemmelshavere: b.hjemmelshavere!.map((h) => ({ ...h, andel: { teller: 1, nevner: 1 }, tinglysingsdato: '2026-11-21' })) } : b));
    const nextFile = path.join(path.dirname(changedFile), 'next', 'Grunnbok_0000_Norge.jsonl');
    await mkdir(path.dirname(nextFile), { recursive: true });
    await writeFile(nextFile, `${again.map((b) => JSON.stringify(b)).join('\n')}\n`);
    const run = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: nextFile });
    expect(sourceOf(run, 'no-land-registry')).toMatchObject({ outcome: 'published', updated: 1 });
    await receiver.waitFor(() => receiver.on('/ok').length > okBefore, 30_000, 'the second owner change on /ok');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.on('/deleted').length).toBe(deletedBefore);
    expect((await outboxOf(subs.deleted)).length).toBe(1);
    changedFile = nextFile;
  });

  it('pausing a subscription cancels its pending delivery at the next attempt', { timeout: 60_000 }, async () => {
    await untilFinishedPolling(subs.pausedLater, 30_000);
    const [row] = await outboxOf(subs.pausedLater);
    expect(row).toMatchObject({ status: 'CANCELLED' });
    expect((await pipeline.pool.query(`SELECT last_error FROM event_outbox WHERE event_id = $1`, [row.event_id])).rows[0].last_error).toBe('subscription paused');
    expect(receiver.on('/paused-later').length).toBeLessThanOrEqual(pausedAt + 1);
  });

  it('a new building permit case on the property reaches the property’s permit subscriber and the company now holding it', { timeout: 120_000 }, async () => {
    const cases = (await readFile(path.join(sampleDir, 'Byggesak_0000_Norge.jsonl'), 'utf8')).trim().split('\n');
    const [kommunenummer, gardsnummer, bruksnummer] = property.split('-');
    const added = {
      ...JSON.parse(cases[0]),
      saksnummer: { saksaar: 2026, sakssekvensnummer: 4711 },
      eiendomByggested: { kommunenummer, gardsnummer: Number(gardsnummer), bruksnummer: Number(bruksnummer), festenummer: 0, seksjonsnummer: 0 },
    };
    const file = path.join(pipeline.dataDir, 'permits', 'Byggesak_0000_Norge.jsonl');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${[...cases, JSON.stringify(added)].join('\n')}\n`);
    const companyBefore = receiver.on('/company').length;
    const run = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input: file });
    expect(sourceOf(run, 'no-permits')).toMatchObject({ outcome: 'published', inserted: 1, updated: 0, deleted: 0 });
    await receiver.waitFor(() => receiver.on('/tenants').length >= 1 && receiver.on('/company').length > companyBefore, 30_000, 'the permit events');
    await untilFinishedPolling(subs.tenants, 30_000);
    const [propertyEvent] = receiver.on('/tenants').map((request) => independentlyVerified(request, SECRET));
    expect(receiver.on('/tenants')).toHaveLength(1);
    expect([propertyEvent.type, propertyEvent.data]).toEqual(['no.service.property.building_permit_changed', { country: 'NO', cadastreId: property, changedField: 'buildingPermits' }]);
    const companyEvent = independentlyVerified(receiver.on('/company').at(-1)!, OTHER_SECRET);
    expect([companyEvent.type, companyEvent.data]).toEqual(['no.service.company.building_permit_changed', { scheme: '0192', id: company, changedField: 'buildingPermits' }]);
    changedPermits = file;
  });

  it('publishing the same input again emits nothing, forced or not', { timeout: 120_000 }, async () => {
    const count = async () => (await pipeline.pool.query(`SELECT count(*)::int AS n FROM event_outbox`)).rows[0].n as number;
    // Every earlier event delivered (or failed) first, so that any later request would be new.
    await until(async () => (await pipeline.pool.query(`SELECT count(*)::int AS n FROM event_outbox WHERE status = 'PENDING'`)).rows[0].n === 0, 30_000, 'no pending delivery');
    const before = await count();
    const requests = receiver.requests.length;
    const same = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: changedFile });
    expect(sourceOf(same, 'no-land-registry').outcome).toBe('unchanged');
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: changedFile, force: true });
    expect(sourceOf(forced, 'no-land-registry')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    const added = (await pipeline.pool.query(`SELECT event_type, subscription_id, run_id, created_at FROM event_outbox ORDER BY created_at DESC LIMIT 4`)).rows;
    const permitsAgain = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input: changedPermits, force: true });
    expect(sourceOf(permitsAgain, 'no-permits')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await count(), JSON.stringify(added)).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.requests.length).toBe(requests);
  });
});

/** Polls `predicate` every 100 ms until it holds. */
async function until(predicate: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every event of the subscription has left PENDING: delivered, failed or cancelled. */
const untilFinishedPolling = (subscriptionId: string, timeoutMs: number) =>
  until(
    async () => (await pipeline.pool.query(`SELECT count(*) FILTER (WHERE status = 'PENDING') = 0 AND count(*) > 0 AS done FROM event_outbox WHERE subscription_id = $1`, [subscriptionId])).rows[0].done,
    timeoutMs,
    `the deliveries of ${subscriptionId} to finish`,
  );
