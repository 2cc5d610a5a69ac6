import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWED_WRITE_MS } from '../../../api/limits/calls-ahead.js';
import { SWEEP_EVERY_CALLS } from '../../../api/limits/window-sweep.js';
import { clientWithToken, get } from '../support/api-server.js';
import { startApiTest, type ApiTest } from '../support/api-test.js';

let api: ApiTest;

beforeAll(async () => {
  api = await startApiTest();
});
afterAll(async () => {
  await api?.stop();
});

const oldWindows = async (subject: string) =>
  (await api.db.query(`SELECT count(*)::int AS n FROM api_rate_window WHERE subject = $1 AND window_start < now() - interval '10 minutes'`, [subject])).rows[0].n;

describe('old rate windows', () => {
  it('are deleted by a process whose calls were all counted in their reads’ own statements or ahead of them', async () => {
    // Before, only the batched count swept (one batch in a thousand, at random): an API serving
    // only GET /coordinates and GET /properties/{id} kept every window it ever wrote.
    const stale = 'ip:192.0.2.9';
    await api.db.query(`INSERT INTO api_rate_window (subject, window_start, shard, calls, charged) VALUES ($1, now() - interval '20 minutes', 0, 3, 0)`, [stale]);
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000, dailyCallLimit: 1_000_000 });
    // One at a time: with no request waiting for a lookup connection, each is counted in its read.
    for (let i = 0; i < SWEEP_EVERY_CALLS; i++) {
      const path = i % 2 ? '/coordinates/NO/58.0005/3.0005' : '/properties/NO/0301-9001-1-0-0';
      expect((await get(api.baseUrl, path, reader.token)).status).toBe(200);
    }
    await expect.poll(() => oldWindows(stale), { timeout: 5000 }).toBe(0);
    // The calls just counted are in windows of the last seconds, which no sweep touches.
    // (The last few may have been answered ahead of their count, and are written moments later.)
    const recent = async () => (await api.db.query(`SELECT coalesce(sum(calls), 0)::int AS calls FROM api_rate_window WHERE subject = $1`, [`client:${reader.clientId}`])).rows[0].calls;
    await expect.poll(recent, { timeout: 20 * OWED_WRITE_MS }).toBe(SWEEP_EVERY_CALLS);
  });
});
