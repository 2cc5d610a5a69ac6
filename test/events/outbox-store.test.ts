import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools, getPool } from '../../lib/db.js';
import { listAttempts, listDeliveries, pruneFinished, recordAttempt } from '../../events/outbox-store.js';
import { createTestDatabase } from '../support/database.js';

/** What `nordprop deliveries` reads and what the delivery records, against the store. */

let db: pg.Pool;
let drop: () => Promise<void>;
const SUBSCRIPTION = '6f1c9a3e-2b7d-4c1e-9f0a-3d5b8e2c7a14';

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = getPool(database.url);
});
afterAll(async () => {
  await closePools();
  await drop?.();
});

const event = (id: string, finishedDaysAgo: number | null) =>
  db.query(
    `INSERT INTO event_outbox (event_id, subscription_id, event_type, target_kind, country, cadastre_id, changed_field, status, finished_at)
     VALUES ($1, $2, 'OWNER_CHANGED', 'PROPERTY', 'NO', '0301-1-1-0-0', 'owners', $3, now() - make_interval(days => $4::int))`,
    [id, SUBSCRIPTION, finishedDaysAgo === null ? 'PENDING' : 'DELIVERED', finishedDaysAgo],
  );

describe('the delivery record', () => {
  it('records each attempt once (a retried activity rewrites its own), and the event’s state with the last', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    await event(id, null);
    const at = new Date('2026-11-21T02:00:00Z');
    await recordAttempt(db, { eventId: id, attempt: 1, startedAt: at, durationMs: 12, statusCode: 500, error: 'HTTP 500', outcome: 'RETRY' });
    await recordAttempt(db, { eventId: id, attempt: 1, startedAt: at, durationMs: 15, statusCode: 502, error: 'HTTP 502', outcome: 'RETRY' });
    expect(await listAttempts(db, id)).toEqual([{ attempt: 1, startedAt: at, durationMs: 15, statusCode: 502, error: 'HTTP 502', outcome: 'RETRY' }]);
    let [listed] = await listDeliveries(db, { eventId: id, limit: 1 });
    expect(listed).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: 502, lastError: 'HTTP 502', subscriptionStatus: 'DELETED', target: 'NO 0301-1-1-0-0', finishedAt: null });
    await recordAttempt(db, { eventId: id, attempt: 2, startedAt: new Date(at.getTime() + 30_000), durationMs: 9, statusCode: 204, outcome: 'DELIVERED' });
    [listed] = await listDeliveries(db, { subscriptionId: SUBSCRIPTION, limit: 10 });
    expect(listed).toMatchObject({ eventId: id, status: 'DELIVERED', attempts: 2, lastStatusCode: 204, lastError: null });
    expect(listed.finishedAt).toBeInstanceOf(Date);
  });

  it('removes finished deliveries past the retention, with their attempts, and nothing pending or recent', async () => {
    await event('00000000-0000-4000-8000-000000000002', 120);
    await event('00000000-0000-4000-8000-000000000003', 10);
    await event('00000000-0000-4000-8000-000000000004', null);
    await recordAttempt(db, { eventId: '00000000-0000-4000-8000-000000000002', attempt: 1, startedAt: new Date(), durationMs: 1, statusCode: 200, outcome: 'DELIVERED' });
    await db.query(`UPDATE event_outbox SET finished_at = now() - interval '120 days' WHERE event_id = '00000000-0000-4000-8000-000000000002'`);
    expect(await pruneFinished(db, 90)).toBe(1);
    const left = (await db.query(`SELECT event_id FROM event_outbox ORDER BY event_id`)).rows.map((r) => r.event_id);
    expect(left).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000004']);
    expect(await listAttempts(db, '00000000-0000-4000-8000-000000000002')).toEqual([]);
  });
});
