import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWED_CAP, OWED_WRITE_MS } from '../../../api/limits/calls-ahead.js';
import { clientWithToken, get, startApiServer } from '../support/api-server.js';
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
