import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type IssuedCredentials } from '../../api/auth/clients.js';
import { TOKEN_FAILURE_WINDOW_S, TOKEN_FAILURES_PER_CLIENT } from '../../api/routes/auth.js';
import { call } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';
import { startSecondApi, type SecondApi } from './support/second-api.js';

/**
 * The token endpoint under a burst of wrong secrets: a client's failures are limited in the
 * store (the same budget on every API process), past it the endpoint answers 429 without
 * running scrypt, and the scrypt that does run is queued fairly, so another client's token
 * request is not stuck behind the burst. Ordering and counts are asserted, not times.
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

const tokenRequest = (baseUrl: string, clientId: string, clientSecret: string) =>
  call(baseUrl, 'POST', '/auth/token', {
    rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

const newClient = (): Promise<IssuedCredentials> => createClient(api.db, { scopes: ['properties.read'], tier: 'basic', sandbox: false });

/**
 * Starts a test's burst in a fresh second (the anonymous limit, 50 a second per address, counts
 * token requests too) and at least `secondsNeeded` before the end of a failure window: the
 * windows are fixed, so a test that crosses into the next one starts on a fresh budget. (A CI
 * run under load took more than five seconds for 26 sequential scrypt checks and failed so.)
 * Returns the window started in: a test checks it is still in it before counting statuses, so a
 * crossing fails as one and not as a wrong count.
 */
async function quietMoment(secondsNeeded: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const intoWindow = Date.now() % (TOKEN_FAILURE_WINDOW_S * 1000);
  if (intoWindow > (TOKEN_FAILURE_WINDOW_S - secondsNeeded) * 1000) await new Promise((resolve) => setTimeout(resolve, TOKEN_FAILURE_WINDOW_S * 1000 - intoWindow + 100));
  return failureWindow();
}

/** The fixed failure window a moment falls in. */
function failureWindow(at = Date.now()): number {
  return Math.floor(at / (TOKEN_FAILURE_WINDOW_S * 1000));
}

const IN_ONE_WINDOW = 'every request in one failure window';

describe('POST /auth/token under a burst of wrong secrets', () => {
  it(`refuses a client's token requests past ${TOKEN_FAILURES_PER_CLIENT} failures, on both processes, without checking the secret`, async () => {
    const target = await newClient();
    const bystander = await newClient();
    const started = await quietMoment(15);
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => tokenRequest(i % 2 ? secondUrl : api.baseUrl, target.clientId, `npsk_live_wrong-${i}`)));
    // Until the window ends even the right secret is refused; another client is not affected.
    const rightSecret = await tokenRequest(secondUrl, target.clientId, target.clientSecret);
    const bystanderAnswer = await tokenRequest(secondUrl, bystander.clientId, bystander.clientSecret);
    expect(failureWindow(), IN_ONE_WINDOW).toBe(started);
    const failed = burst.filter((r) => r.status === 400);
    const refused = burst.filter((r) => r.status === 429);
    // Exactly the budget was checked (and failed); the rest were refused before any scrypt.
    expect(failed).toHaveLength(TOKEN_FAILURES_PER_CLIENT);
    expect(failed.every((r) => r.body.error === 'invalid_client')).toBe(true);
    expect(refused).toHaveLength(40 - TOKEN_FAILURES_PER_CLIENT);
    for (const response of refused) {
      expect(response.contentType).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(TOKEN_FAILURE_WINDOW_S);
    }
    expect(rightSecret.status).toBe(429);
    expect(bystanderAnswer.status).toBe(200);
    const stored = await api.db.query(`SELECT sum(attempts)::int AS attempts FROM api_token_attempt WHERE client_id = $1`, [target.clientId]);
    expect(stored.rows[0].attempts).toBeGreaterThanOrEqual(40);
  });

  it('counts failures only: successful requests give their attempt back', async () => {
    const client = await newClient();
    // 26 sequential scrypt checks: tens of ms each, seconds on a loaded machine.
    const started = await quietMoment(30);
    for (let i = 0; i < TOKEN_FAILURES_PER_CLIENT + 5; i++) expect((await tokenRequest(api.baseUrl, client.clientId, client.clientSecret)).status).toBe(200);
    for (let i = 0; i < TOKEN_FAILURES_PER_CLIENT; i++) expect((await tokenRequest(api.baseUrl, client.clientId, 'npsk_live_wrong')).status).toBe(400);
    const last = await tokenRequest(api.baseUrl, client.clientId, 'npsk_live_wrong');
    expect(failureWindow(), IN_ONE_WINDOW).toBe(started);
    expect(last.status).toBe(429);
  });

  it("answers another client's valid request after the scrypt already running, not after the burst", async () => {
    const attacked = await newClient();
    const valid = await newClient();
    const started = await quietMoment(15);
    const finished: string[] = [];
    const burst = Array.from({ length: 40 }, (_, i) =>
      tokenRequest(api.baseUrl, attacked.clientId, `npsk_live_wrong-${i}`).then((r) => {
        finished.push(r.status === 400 ? 'failed' : `refused ${r.status}`);
        return r;
      }),
    );
    // While the burst's admitted attempts wait for scrypt.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await tokenRequest(api.baseUrl, valid.clientId, valid.clientSecret).then((r) => {
      finished.push('valid');
      return r;
    });
    const responses = await Promise.all(burst);
    expect(failureWindow(), IN_ONE_WINDOW).toBe(started);
    expect(answer.status).toBe(200);
    expect(responses.filter((r) => r.status === 400)).toHaveLength(TOKEN_FAILURES_PER_CLIENT);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(40 - TOKEN_FAILURES_PER_CLIENT);
    // The valid request waited for the scrypt running when it came and its turn in the fair
    // queue (two of the burst's on this machine), not for the burst's queue: most of the burst's
    // checked attempts finish after it (first come, first served, it finished 40th of 41).
    const validAt = finished.indexOf('valid');
    const failedBefore = finished.slice(0, validAt).filter((f) => f === 'failed').length;
    expect(failedBefore).toBeLessThanOrEqual(TOKEN_FAILURES_PER_CLIENT / 2);
  });

  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
