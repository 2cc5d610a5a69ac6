import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clientWithToken, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';

/**
 * POST /properties/{country}/lookups charges each id as a call together with the response it
 * stores for its Idempotency-Key (api/routes/lookups.ts): a lookup that fails is not charged for
 * its ids, and a replay does not charge them again.
 */
let api: ApiTest;
let client: TestClient;

const KEY_THAT_CANNOT_BE_STORED = randomUUID();
const IDS = Array.from({ length: 20 }, () => '0301-9001-1-0-0');

beforeAll(async () => {
  api = await startApiTest();
  client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
  // A store that refuses this one response, as it would a value it cannot hold: the failure
  // comes after the lookup ran, where the response is stored.
  await api.db.query(`
    CREATE FUNCTION test_refuse_idempotency() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.idempotency_key = '${KEY_THAT_CANNOT_BE_STORED}' THEN RAISE EXCEPTION 'this response cannot be stored'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_refuse_idempotency BEFORE INSERT ON api_idempotency FOR EACH ROW EXECUTE FUNCTION test_refuse_idempotency();
  `);
});
afterAll(async () => {
  await api?.stop();
});

const callsToday = async () => (await call(api.baseUrl, 'GET', '/auth/me', { token: client.token })).body.callsToday as number;
const lookup = (key: string, ids = IDS) =>
  call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: client.token, body: { cadastreIds: ids }, headers: { 'idempotency-key': key } });

describe('bulk lookup charges', () => {
  it('a lookup whose response cannot be stored is not charged for its ids', async () => {
    const before = await callsToday();
    const failed = await lookup(KEY_THAT_CANNOT_BE_STORED);
    expect(failed.status).toBe(500);
    // The failed request itself (counted by the guard, as every request) and the /auth/me reading the count.
    expect(await callsToday()).toBe(before + 2);
  });

  it('a stored lookup charges every id once; its replay charges none of them again', async () => {
    const key = randomUUID();
    const before = await callsToday();
    expect((await lookup(key)).status).toBe(200);
    expect(await callsToday()).toBe(before + IDS.length + 1);
    const replay = await lookup(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await callsToday()).toBe(before + IDS.length + 1 + 2);
  });

  it('a lookup past the daily limit is 429, charged nothing and stores nothing', async () => {
    const small = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], dailyCallLimit: 10 });
    const key = randomUUID();
    const refused = await call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: small.token, body: { cadastreIds: IDS }, headers: { 'idempotency-key': key } });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('DAILY_LIMIT_EXCEEDED');
    expect((await call(api.baseUrl, 'GET', '/auth/me', { token: small.token })).body.callsToday).toBe(2);
    const stored = await api.db.query(`SELECT count(*)::int AS n FROM api_idempotency WHERE idempotency_key = $1`, [key]);
    expect(stored.rows[0].n).toBe(0);
  });
});
