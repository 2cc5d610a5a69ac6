import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_FOR_MS, OWED_CAP, OWED_WRITE_MS } from '../../../api/limits/calls-ahead.js';
import { REVOCATION_CHECK_MS } from '../../../api/auth/tokens.js';
import { call, clientWithToken, get, startApiServer } from '../support/api-server.js';
import { startApiTest, type ApiTest } from '../support/api-test.js';
import { startSecondApi } from '../support/second-api.js';

let api: ApiTest;
beforeAll(async () => {
  api = await startApiTest();
});
afterAll(async () => {
  await api?.stop();
});

const COORDINATE = '/coordinates/NO/58.0005/3.0005';
const PROPERTY = '/properties/NO/0301-9001-1-0-0';

const callsToday = async (clientId: string) => (await api.db.query(`SELECT api_calls_today($1) AS calls`, [clientId])).rows[0].calls as number;

async function answeredAhead(baseUrl: string): Promise<number> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = metrics.split('\n').find((l) => l.startsWith('nordprop_api_calls_answered_ahead_total '));
  if (!line) throw new Error('no nordprop_api_calls_answered_ahead_total in /metrics');
  return Number(line.split(' ')[1]);
}

describe('reads of a client far from its limits', () => {
  it('are answered before their count and counted in groups; every call reaches the store', async () => {
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 1_000_000 });
    const before = await answeredAhead(api.baseUrl);
    const calls = 200;
    const remaining: number[] = [];
    for (let i = 0; i < calls; i++) {
      const response = await get(api.baseUrl, i % 2 ? COORDINATE : PROPERTY, reader.token);
      expect(response.status).toBe(200);
      remaining.push(Number(response.headers.get('ratelimit-remaining')));
    }
    // Only the first call, and one call in every OWED_CAP + 1 (which carries the calls owed before it), waited for a count.
    expect((await answeredAhead(api.baseUrl)) - before).toBeGreaterThanOrEqual(calls - 1 - Math.ceil(calls / (OWED_CAP + 1)));
    // RateLimit-Remaining falls by one a call, answered ahead or not, until a new window starts.
    for (let i = 1; i < calls; i++) if (remaining[i] < remaining[i - 1]) expect(remaining[i]).toBe(remaining[i - 1] - 1);
    // Within a few OWED_WRITE_MS every call is in the store, once.
    await expect.poll(() => callsToday(reader.clientId), { timeout: 20 * OWED_WRITE_MS, interval: OWED_WRITE_MS }).toBe(calls);
    await new Promise((resolve) => setTimeout(resolve, 4 * OWED_WRITE_MS));
    expect(await callsToday(reader.clientId)).toBe(calls);
    // /auth/me is counted first, with what its process owes: exact at once in that process.
    for (let i = 0; i < 5; i++) await get(api.baseUrl, COORDINATE, reader.token);
    expect((await get(api.baseUrl, '/auth/me', reader.token)).body.callsToday).toBe(calls + 6);
  });

  it('counted while the calls owed before them are still being written fall by one each, in order', async () => {
    // The API's counting pool is the test's: holding its connections keeps a write of owed calls
    // waiting, as a busy pool does, while the lookups' pool answers.
    const counting = new pg.Pool({ connectionString: (api.db as unknown as { options: { connectionString: string } }).options.connectionString, max: 2 });
    const server = await startApiServer(counting);
    try {
      const reader = await clientWithToken(api.db, server.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 1_000_000 });
      // One window for the whole test: a new window rightly raises RateLimit-Remaining.
      await api.db.query(`UPDATE api_client SET burst_window_s = 3600 WHERE client_id = $1`, [reader.clientId]);
      // So that the first call below looks at the revocations afresh: none is due while the counting pool is held.
      await new Promise((resolve) => setTimeout(resolve, REVOCATION_CHECK_MS));
      const remaining = async (path: string) => {
        const response = await get(server.baseUrl, path, reader.token);
        expect(response.status).toBe(200);
        return Number(response.headers.get('ratelimit-remaining'));
      };
      const seen = [await remaining(PROPERTY)];
      const held = await Promise.all([counting.connect(), counting.connect()]);
      let released = false;
      const release = () => {
        if (!released) for (const client of held) client.release();
        released = true;
      };
      // Let go in any case: on a machine slow enough for a count to be needed while they are held, it waits for them.
      const letGo = setTimeout(release, 5000);
      try {
        for (let i = 0; i < 4; i++) seen.push(await remaining(i % 2 ? COORDINATE : PROPERTY));
        // The owed calls' write has started and waits for a connection; what the first count told has expired.
        await new Promise((resolve) => setTimeout(resolve, Math.max(OWED_WRITE_MS, KNOWN_FOR_MS) * 2));
        const next = remaining(COORDINATE);
        await new Promise((resolve) => setTimeout(resolve, 100));
        release();
        seen.push(await next);
      } finally {
        clearTimeout(letGo);
        release();
      }
      seen.push(await remaining(PROPERTY));
      expect(seen).toEqual(seen.map((_, i) => seen[0] - i));
      await expect.poll(() => callsToday(reader.clientId), { timeout: 20 * OWED_WRITE_MS, interval: OWED_WRITE_MS }).toBe(seen.length);
    } finally {
      await server.close();
      await counting.end();
    }
  });

  it('answered by another process reach callsToday within moments, and its shutdown writes what it owes', async () => {
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 1_000_000 });
    const second = await startSecondApi(api);
    let stopped = false;
    try {
      for (let i = 0; i < 20; i++) expect((await get(second.url, COORDINATE, reader.token)).status).toBe(200);
      await expect.poll(() => callsToday(reader.clientId), { timeout: 20 * OWED_WRITE_MS, interval: OWED_WRITE_MS }).toBe(20);
      // Calls answered just before a graceful stop (SIGTERM) are written before the process exits.
      const counted = await callsToday(reader.clientId);
      for (let i = 0; i < 10; i++) expect((await get(second.url, PROPERTY, reader.token)).status).toBe(200);
      await second.stop();
      stopped = true;
      expect(await callsToday(reader.clientId)).toBe(counted + 10);
    } finally {
      if (!stopped) await second.stop();
    }
  });

  it('answered by a process killed outright (SIGKILL) are lost at most OWED_CAP a client: the others are in the store', async () => {
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 1_000_000 });
    const second = await startSecondApi(api);
    let killed = false;
    try {
      const calls = 100;
      for (let i = 0; i < calls; i++) expect((await get(second.url, i % 2 ? COORDINATE : PROPERTY, reader.token)).status).toBe(200);
      await second.stop('SIGKILL');
      killed = true;
      // A count the process had sent may still commit after it died: read once that is over.
      await new Promise((resolve) => setTimeout(resolve, 10 * OWED_WRITE_MS));
      const counted = await callsToday(reader.clientId);
      expect(counted).toBeLessThanOrEqual(calls);
      expect(counted).toBeGreaterThanOrEqual(calls - OWED_CAP);
    } finally {
      if (!killed) await second.stop();
    }
  });

  it('of a client whose bulk lookup brought its day within the margin of its limit are counted first again', async () => {
    // 350 calls a day: after one read, 349 are left, far from the limit (the margin is 256); a bulk lookup of 100 ids then leaves 249.
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 350 });
    expect((await get(api.baseUrl, PROPERTY, reader.token)).status).toBe(200);
    const before = await answeredAhead(api.baseUrl);
    const bulk = await call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: reader.token, body: { cadastreIds: Array.from({ length: 100 }, () => '0301-9001-1-0-0') }, headers: { 'idempotency-key': randomUUID() } });
    expect(bulk.status).toBe(200);
    expect((await get(api.baseUrl, COORDINATE, reader.token)).status).toBe(200);
    expect((await answeredAhead(api.baseUrl)) - before).toBe(0);
    expect(await callsToday(reader.clientId)).toBe(1 + 100 + 1);
  });

  it('near a limit are counted before they are answered: the daily limit holds exactly across two processes', async () => {
    // 1,000 a day: far from the limit (the margin is 256) for the first 744 calls or so.
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 1000 });
    const second = await startApiServer(api.db);
    try {
      const before = (await answeredAhead(api.baseUrl)) + (await answeredAhead(second.baseUrl));
      const statuses: number[] = [];
      for (let round = 0; round < 12; round++) {
        const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 ? second.baseUrl : api.baseUrl, i % 3 ? COORDINATE : PROPERTY, reader.token)));
        statuses.push(...responses.map((r) => r.status));
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
      expect(statuses.filter((s) => s === 429)).toHaveLength(200);
      const ahead = (await answeredAhead(api.baseUrl)) + (await answeredAhead(second.baseUrl)) - before;
      expect(ahead).toBeGreaterThan(0);
      expect(ahead).toBeLessThanOrEqual(1000 - 256);
      await expect.poll(() => callsToday(reader.clientId), { timeout: 20 * OWED_WRITE_MS }).toBe(1000);
    } finally {
      await second.close();
    }
  });
});
