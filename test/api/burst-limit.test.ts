import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithToken, get, type ApiResponse } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { startSecondApi, type SecondApi } from './support/second-api.js';

/**
 * The burst limit is exact: in each one-second window a subject gets at most its limit of
 * answers, and exactly that many when it asked for more, across API processes and whichever way
 * a request is counted (in its read's own statement, or in the process's batched count). Every
 * request is counted in the store's window (api_rate_window), answered or not, so what each
 * window allowed is known: min(limit, requests in it).
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

/** The answers the store's windows allowed the subject: the sum over its windows of min(limit, requests). */
async function allowed(subject: string, limit: number, sinceMs: number): Promise<{ allowed: number; windows: number }> {
  const result = await api.db.query(
    `SELECT count(*)::int AS windows, coalesce(sum(least($2::int, calls)), 0)::int AS allowed
     FROM (SELECT window_start, sum(calls)::int AS calls FROM api_rate_window
           WHERE subject = $1 AND window_start >= to_timestamp(floor($3::float8 / 1000)) GROUP BY window_start) w`,
    [subject, limit, sinceMs],
  );
  return result.rows[0];
}

/** Waits for the start of a second, so a burst of a few hundred milliseconds stays in one window; returns the time. */
async function startOfSecond(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
  return Date.now();
}

function expectLimited(responses: ApiResponse[]): void {
  for (const response of responses.filter((r) => r.status === 429)) {
    expect(response.body.code).toBe('RATE_LIMITED');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  expect(responses.every((r) => r.status === 200 || r.status === 429)).toBe(true);
}

describe('the burst limit', () => {
  it('30 parallel reads at 10 a second, on two processes, both ways of counting: exactly what the windows allow', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], tier: 'basic', burstLimit: 10 });
    const answeredPerRound: number[] = [];
    let since = 0;
    for (let round = 0; round < 5; round++) {
      const started = await startOfSecond();
      since ||= started;
      // GET /properties/{id} counts in its read's statement, /owners in the batched count.
      const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => get(i % 2 ? secondUrl : api.baseUrl, i % 4 < 2 ? PROPERTY : `${PROPERTY}/owners`, client.token)));
      expectLimited(responses);
      answeredPerRound.push(responses.filter((r) => r.status === 200).length);
    }
    const { allowed: expected, windows } = await allowed(`client:${client.clientId}`, 10, since);
    const answered = answeredPerRound.reduce((a, b) => a + b, 0);
    expect(answered, `answered per round: ${answeredPerRound.join(', ')}`).toBe(expected);
    expect(answered).toBeLessThanOrEqual(10 * windows);
    // Each round in a window of its own (the usual case): exactly ten each.
    if (windows === 5) expect(answeredPerRound).toEqual([10, 10, 10, 10, 10]);
  });

  it('holds for every round of a longer burst', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], tier: 'basic', burstLimit: 7 });
    const responses: ApiResponse[] = [];
    let since = 0;
    for (let round = 0; round < 3; round++) {
      const started = await startOfSecond();
      since ||= started;
      responses.push(...(await Promise.all(Array.from({ length: 25 }, (_, i) => get(i % 2 ? secondUrl : api.baseUrl, i % 3 ? PROPERTY : '/coordinates/NO/58.0005/3.0005', client.token)))));
    }
    expectLimited(responses);
    const { allowed: expected } = await allowed(`client:${client.clientId}`, 7, since);
    expect(responses.filter((r) => r.status === 200).length).toBe(expected);
  });

  it('holds for callers without a token, per address (50 a second)', async () => {
    const since = await startOfSecond();
    const responses = await Promise.all(Array.from({ length: 120 }, (_, i) => get(i % 2 ? secondUrl : api.baseUrl, '/health')));
    expectLimited(responses);
    const { allowed: expected } = await allowed('ip:127.0.0.1', 50, since);
    expect(responses.filter((r) => r.status === 200).length).toBe(expected);
  });
});
