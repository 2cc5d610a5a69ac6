import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closePools, getPool, withTransaction } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';

/**
 * The outbox triggers (schema/1763900100000_events.sql) on the live tables, written to the way
 * the publishers write them (one statement per insert, update or delete of a merge, in one
 * transaction): which change writes which outbox row, and which writes none.
 */

let db: pg.Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = getPool(database.url);
  await db.query(`INSERT INTO api_client (client_id, secret_hash, tier, scopes, daily_call_limit, burst_limit, sandbox) VALUES ('c', 'x', 'basic', '{}', 10, 10, false)`);
  // 0301-1-1-0-0 has a section, 0301-1-1-0-3, whose owners are the property's owners.
  await db.query(`INSERT INTO section (country, cadastre_id, property_cadastre_id, section_number, row_hash, published_run_id) VALUES ('NO', '0301-1-1-0-3', '0301-1-1-0-0', '3', gen_random_uuid(), 'r0')`);
});
afterAll(async () => {
  await closePools();
  await drop?.();
});
beforeEach(async () => {
  await db.query(`TRUNCATE event_outbox CASCADE`);
  await db.query(`DELETE FROM subscription`);
  for (const table of ['owner', 'property_transaction', 'transaction_party', 'building_permit', 'tenant']) await db.query(`DELETE FROM ${table}`);
  await db.query(`TRUNCATE event_outbox CASCADE`);
});

type Target = { kind: 'PROPERTY'; cadastreId: string } | { kind: 'COMPANY'; orgId: string };

async function subscribe(target: Target, events: string[], status = 'ACTIVE'): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO subscription (subscription_id, client_id, target_kind, target_country, target_cadastre_id, target_scheme, target_id, events, webhook_url, secret_encrypted, status)
     VALUES ($1, 'c', $2, $3, $4, $5, $6, $7, 'https://hooks.example.org/x', 'sealed', $8)`,
    [id, target.kind, target.kind === 'PROPERTY' ? 'NO' : null, target.kind === 'PROPERTY' ? target.cadastreId : null,
      target.kind === 'COMPANY' ? '0192' : null, target.kind === 'COMPANY' ? target.orgId : null, events, status],
  );
  return id;
}

const ownerRow = (key: string, cadastreId: string, orgId: string | null = null) =>
  db.query(
    `INSERT INTO owner (country, owner_key, cadastre_id, kind, person_id, org_scheme, org_id, org_name, share_numerator, share_denominator, row_hash, published_run_id)
     VALUES ('NO', $1, $2, $3, $4, $5, $6, $7, 1, 1, gen_random_uuid(), 'r1')`,
    [key, cadastreId, orgId ? 'ORGANIZATION' : 'PERSON', orgId ? null : `p-${key}`, orgId ? '0192' : null, orgId, orgId ? 'EIENDOM AS' : null],
  );

async function outbox(): Promise<Record<string, unknown>[]> {
  return (await db.query(
    `SELECT subscription_id, event_type, target_kind, country, cadastre_id, org_scheme, org_id, changed_field, run_id, status FROM event_outbox ORDER BY subscription_id, event_type`,
  )).rows;
}

describe('change events written by the live tables’ triggers', () => {
  it('writes nothing at all while nobody subscribes, however large the publish', async () => {
    await db.query(
      `INSERT INTO owner (country, owner_key, cadastre_id, kind, person_id, row_hash, published_run_id)
       SELECT 'NO', 'k' || g, '0301-9-' || g || '-0-0', 'PERSON', 'p' || g, gen_random_uuid(), 'r1' FROM generate_series(1, 20000) g`,
    );
    await db.query(`UPDATE owner SET birth_year = 1970`);
    await db.query(`DELETE FROM owner`);
    expect(await outbox()).toEqual([]);
  });

  it('one row per subscribed property and publish, with the run named by the publisher; a section’s owners count for its property', async () => {
    const sub = await subscribe({ kind: 'PROPERTY', cadastreId: '0301-1-1-0-0' }, ['OWNER_CHANGED']);
    await ownerRow('old', '0301-1-1-0-3');
    await db.query(`TRUNCATE event_outbox CASCADE`);
    // A change of owner as a merge writes it: the old holder's key deleted, the new one's inserted.
    await withTransaction(db, async (tx) => {
      await tx.query(`SELECT set_config('nordprop.run_id', 'run-42', true)`);
      await tx.query(`DELETE FROM owner WHERE owner_key = 'old'`);
      await tx.query(
        `INSERT INTO owner (country, owner_key, cadastre_id, kind, person_id, row_hash, published_run_id)
         SELECT 'NO', 'new', '0301-1-1-0-3', 'PERSON', 'p-new', gen_random_uuid(), 'r2'
         UNION ALL SELECT 'NO', 'k' || g, '0301-2-' || g || '-0-0', 'PERSON', 'p' || g, gen_random_uuid(), 'r2' FROM generate_series(1, 500) g`,
      );
    });
    expect(await outbox()).toEqual([
      { subscription_id: sub, event_type: 'OWNER_CHANGED', target_kind: 'PROPERTY', country: 'NO', cadastre_id: '0301-1-1-0-0', org_scheme: null, org_id: null, changed_field: 'owners', run_id: 'run-42', status: 'PENDING' },
    ]);
    // The next publish is another change: another event, with another id.
    await db.query(`UPDATE owner SET share_numerator = 1, share_denominator = 2 WHERE owner_key = 'new'`);
    const ids = (await db.query(`SELECT event_id, run_id FROM event_outbox ORDER BY created_at`)).rows;
    expect(ids).toHaveLength(2);
    expect(ids[0].event_id).not.toBe(ids[1].event_id);
    expect(ids[1].run_id).toBeNull();
  });

  it('an update that rewrites only bookkeeping columns is no change; a rolled-back publish leaves no event', async () => {
    await subscribe({ kind: 'PROPERTY', cadastreId: '0301-1-1-0-0' }, ['OWNER_CHANGED', 'TENANT_CHANGED']);
    await ownerRow('a', '0301-1-1-0-0');
    await db.query(
      `INSERT INTO tenant (country, cadastre_id, org_scheme, org_id, name, org_country, verification_source, confidence, last_seen_at)
       VALUES ('NO', '0301-1-1-0-0', '0192', '914778271', 'KAFÉ AS', 'NO', 'BUSINESS_REGISTER', 'HIGH', now())`,
    );
    await db.query(`TRUNCATE event_outbox CASCADE`);
    await db.query(`UPDATE owner SET row_hash = gen_random_uuid(), published_run_id = 'r9', updated_at = now() + interval '1 day'`);
    await db.query(`UPDATE tenant SET last_seen_at = now() + interval '1 day', updated_at = now() + interval '1 day'`);
    expect(await outbox()).toEqual([]);

    await withTransaction(db, async (tx) => {
      await tx.query(`UPDATE owner SET birth_year = 1950`);
      throw new Error('publish failed');
    }).catch(() => undefined);
    expect(await outbox()).toEqual([]);

    await db.query(`UPDATE tenant SET confidence = 'MEDIUM'`);
    expect((await outbox()).map((row) => [row.event_type, row.changed_field])).toEqual([['TENANT_CHANGED', 'tenants']]);
  });

  it('paused subscriptions, other kinds and other properties get nothing', async () => {
    await subscribe({ kind: 'PROPERTY', cadastreId: '0301-1-1-0-0' }, ['OWNER_CHANGED'], 'PAUSED');
    await subscribe({ kind: 'PROPERTY', cadastreId: '0301-1-1-0-0' }, ['BUILDING_PERMIT_CHANGED', 'TENANT_CHANGED']);
    const elsewhere = await subscribe({ kind: 'PROPERTY', cadastreId: '0301-5-5-0-0' }, ['OWNER_CHANGED']);
    await ownerRow('a', '0301-1-1-0-0');
    await ownerRow('b', '0301-1-1-0-3');
    expect(await outbox()).toEqual([]);
    await ownerRow('c', '0301-5-5-0-0');
    expect((await outbox()).map((row) => row.subscription_id)).toEqual([elsewhere]);
  });

  it('transactions: a new registration is an event, a corrected one is not; per property and per company party', async () => {
    const property = await subscribe({ kind: 'PROPERTY', cadastreId: '0301-1-1-0-0' }, ['TRANSACTION_REGISTERED']);
    const company = await subscribe({ kind: 'COMPANY', orgId: '914778271' }, ['TRANSACTION_REGISTERED']);
    const register = (tx: pg.PoolClient | pg.Pool, id: string, cadastreId: string) =>
      tx.query(
        `INSERT INTO property_transaction (country, transaction_id, cadastre_id, registered_at, kind, source, row_hash, published_run_id)
         VALUES ('NO', $1, $2, now(), 'SALE', 'MAPPING_AUTHORITY_TINGLYSING', gen_random_uuid(), 'r1')`,
        [id, cadastreId],
      );
    const party = (tx: pg.PoolClient | pg.Pool, id: string, orgId: string) =>
      tx.query(`INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, org_scheme, org_id) VALUES ('NO', $1, 'BUYER', 1, 'ORGANIZATION', '0192', $2)`, [id, orgId]);

    await withTransaction(db, async (tx) => {
      await register(tx, 't1', '0301-1-1-0-0');
      await party(tx, 't1', '914778271');
    });
    expect((await outbox()).map((row) => [row.subscription_id, row.target_kind, row.changed_field])).toEqual(
      [[property, 'PROPERTY', 'transactions'], [company, 'COMPANY', 'transactions']].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    await db.query(`TRUNCATE event_outbox CASCADE`);

    // A corrected price: the transfer is updated and its parties rewritten, nothing is new.
    await withTransaction(db, async (tx) => {
      await tx.query(`UPDATE property_transaction SET price_amount = 100, row_hash = gen_random_uuid() WHERE transaction_id = 't1'`);
      await tx.query(`DELETE FROM transaction_party WHERE transaction_id = 't1'`);
      await party(tx, 't1', '914778271');
    });
    expect(await outbox()).toEqual([]);

    // The company buys elsewhere: its subscription hears of it, the property's does not.
    await withTransaction(db, async (tx) => {
      await register(tx, 't2', '0301-7-7-0-0');
      await party(tx, 't2', '914778271');
    });
    expect((await outbox()).map((row) => [row.subscription_id, row.org_id])).toEqual([[company, '914778271']]);
  });

  it('companies hear of their own title changes, and of building permits on properties they hold', async () => {
    const sub = await subscribe({ kind: 'COMPANY', orgId: '914778271' }, ['OWNER_CHANGED', 'BUILDING_PERMIT_CHANGED']);
    await ownerRow('org', '0301-3-3-0-0', '914778271');
    await ownerRow('someone', '0301-4-4-0-0');
    await db.query(
      `INSERT INTO building_permit (country, case_id, cadastre_id, municipality_code, status, row_hash, published_run_id)
       VALUES ('NO', 'c1', '0301-3-3-0-0', '0301', 'APPLIED', gen_random_uuid(), 'r1'), ('NO', 'c2', '0301-4-4-0-0', '0301', 'APPLIED', gen_random_uuid(), 'r1')`,
    );
    expect((await outbox()).map((row) => [row.subscription_id, row.event_type, row.target_kind, row.org_scheme, row.org_id, row.changed_field])).toEqual([
      [sub, 'BUILDING_PERMIT_CHANGED', 'COMPANY', '0192', '914778271', 'buildingPermits'],
      [sub, 'OWNER_CHANGED', 'COMPANY', '0192', '914778271', 'owners'],
    ]);
    await db.query(`TRUNCATE event_outbox CASCADE`);
    await db.query(`UPDATE building_permit SET status = 'APPROVED', row_hash = gen_random_uuid()`);
    await db.query(`DELETE FROM owner WHERE owner_key = 'org'`);
    expect((await outbox()).map((row) => row.event_type)).toEqual(['BUILDING_PERMIT_CHANGED', 'OWNER_CHANGED']);
  });
});
