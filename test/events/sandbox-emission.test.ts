import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closePools, getPool, withTransaction } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';

/**
 * The sandbox rule for change events (schema/1763902000000_event-sandbox-rule.sql): a sandbox
 * client's subscriptions hear only of changes to demo properties, whatever their target and
 * whatever table changed. Company 914778271 holds title to the demo property D and to the
 * non-demo property N, is a tenant of both and buys on both: a live client subscribed to
 * it hears of both, a sandbox client subscribed to it only of D.
 */

let db: pg.Pool;
let drop: () => Promise<void>;

const D = '0301-1-1-0-0';
const D_SECTION = '0301-1-1-0-3';
const N = '0301-2-2-0-0';
const COMPANY = '914778271';
const ALL_EVENTS = ['OWNER_CHANGED', 'TRANSACTION_REGISTERED', 'TENANT_CHANGED', 'BUILDING_PERMIT_CHANGED'];

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = getPool(database.url);
  await db.query(`
    INSERT INTO api_client (client_id, secret_hash, tier, scopes, daily_call_limit, burst_limit, sandbox) VALUES
      ('live', 'x', 'basic', '{}', 10, 10, false), ('sandbox', 'x', 'sandbox', '{}', 10, 10, true);
    INSERT INTO api_demo_property (country, cadastre_id) VALUES ('NO', '${D}');
    INSERT INTO section (country, cadastre_id, property_cadastre_id, section_number, row_hash, published_run_id)
      VALUES ('NO', '${D_SECTION}', '${D}', '3', gen_random_uuid(), 'r0');
  `);
});
afterAll(async () => {
  await closePools();
  await drop?.();
});
beforeEach(async () => {
  await db.query(`DELETE FROM subscription`);
  for (const table of ['owner', 'property_transaction', 'transaction_party', 'building_permit', 'tenant']) await db.query(`DELETE FROM ${table}`);
  await db.query(`TRUNCATE event_outbox CASCADE`);
});

type Target = { kind: 'PROPERTY'; cadastreId: string } | { kind: 'COMPANY'; orgId: string };

/** Inserted as the store holds it: a sandbox's subscription to N stands for one made while N was a demo property. */
async function subscribe(clientId: string, target: Target): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO subscription (subscription_id, client_id, target_kind, target_country, target_cadastre_id, target_scheme, target_id, events, webhook_url, secret_encrypted)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'https://hooks.example.org/x', 'sealed')`,
    [id, clientId, target.kind, target.kind === 'PROPERTY' ? 'NO' : null, target.kind === 'PROPERTY' ? target.cadastreId : null,
      target.kind === 'COMPANY' ? '0192' : null, target.kind === 'COMPANY' ? target.orgId : null, ALL_EVENTS],
  );
  return id;
}

/** What a publish writes for one property: a title of the company, a tenancy, a permit and a sale to the company. */
async function changeProperty(tx: pg.PoolClient, cadastreId: string, tag: string): Promise<void> {
  await tx.query(
    `INSERT INTO owner (country, owner_key, cadastre_id, kind, org_scheme, org_id, org_name, share_numerator, share_denominator, row_hash, published_run_id)
     VALUES ('NO', $1, $2, 'ORGANIZATION', '0192', $3, 'EIENDOM AS', 1, 2, gen_random_uuid(), 'r1')`,
    [`o-${tag}`, cadastreId, COMPANY],
  );
  await tx.query(
    `INSERT INTO tenant (country, cadastre_id, org_scheme, org_id, name, org_country, verification_source, confidence, last_seen_at)
     VALUES ('NO', $1, '0192', $2, 'EIENDOM AS', 'NO', 'BUSINESS_REGISTER', 'HIGH', now())`,
    [cadastreId, COMPANY],
  );
  await tx.query(
    `INSERT INTO building_permit (country, case_id, cadastre_id, municipality_code, status, row_hash, published_run_id)
     VALUES ('NO', $1, $2, '0301', 'APPLIED', gen_random_uuid(), 'r1')`,
    [`c-${tag}`, cadastreId],
  );
  await tx.query(
    `INSERT INTO property_transaction (country, transaction_id, cadastre_id, registered_at, kind, source, row_hash, published_run_id)
     VALUES ('NO', $1, $2, now(), 'SALE', 'MAPPING_AUTHORITY_TINGLYSING', gen_random_uuid(), 'r1')`,
    [`t-${tag}`, cadastreId],
  );
  await tx.query(
    `INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, org_scheme, org_id) VALUES ('NO', $1, 'BUYER', 1, 'ORGANIZATION', '0192', $2)`,
    [`t-${tag}`, COMPANY],
  );
}

interface OutboxRow {
  subscription_id: string;
  event_type: string;
  target_kind: string;
  cadastre_id: string | null;
  org_id: string | null;
}

async function outboxOf(subscriptionIds: string[]): Promise<OutboxRow[]> {
  return (await db.query(
    `SELECT subscription_id, event_type, target_kind, cadastre_id, org_id FROM event_outbox
     WHERE subscription_id = ANY ($1::uuid[]) ORDER BY target_kind, cadastre_id, event_type`,
    [subscriptionIds],
  )).rows;
}

const eventTypes = (rows: OutboxRow[]) => rows.map((row) => row.event_type).sort();

describe('change events for a sandbox client', () => {
  it('a publish changing a demo and a non-demo property: the sandbox hears only of the demo one, by property and by company', async () => {
    const sandboxD = await subscribe('sandbox', { kind: 'PROPERTY', cadastreId: D });
    const sandboxN = await subscribe('sandbox', { kind: 'PROPERTY', cadastreId: N });
    const sandboxCompany = await subscribe('sandbox', { kind: 'COMPANY', orgId: COMPANY });
    const liveN = await subscribe('live', { kind: 'PROPERTY', cadastreId: N });

    await withTransaction(db, async (tx) => {
      await changeProperty(tx, D, 'd');
      await changeProperty(tx, N, 'n');
    });

    const sandboxRows = await outboxOf([sandboxD, sandboxN, sandboxCompany]);
    // Every identifier the sandbox's deliveries carry is the demo property's or the company's.
    expect(sandboxRows.filter((row) => row.target_kind === 'PROPERTY').map((row) => row.cadastre_id)).toEqual([D, D, D, D]);
    expect(sandboxRows.filter((row) => row.subscription_id === sandboxN)).toEqual([]);
    expect(eventTypes(sandboxRows.filter((row) => row.subscription_id === sandboxD))).toEqual([...ALL_EVENTS].sort());
    expect(eventTypes(sandboxRows.filter((row) => row.subscription_id === sandboxCompany))).toEqual([...ALL_EVENTS].sort());
    // A live client's subscription to N is told as before.
    expect(eventTypes(await outboxOf([liveN]))).toEqual([...ALL_EVENTS].sort());
  });

  it('a publish changing only the non-demo property: nothing for the sandbox’s company subscription, every event for a live one', async () => {
    const sandboxCompany = await subscribe('sandbox', { kind: 'COMPANY', orgId: COMPANY });
    const liveCompany = await subscribe('live', { kind: 'COMPANY', orgId: COMPANY });

    await withTransaction(db, async (tx) => changeProperty(tx, N, 'n'));
    expect(await outboxOf([sandboxCompany])).toEqual([]);
    expect(eventTypes(await outboxOf([liveCompany]))).toEqual([...ALL_EVENTS].sort());

    // Updates and deletes of N's rows are changes about N too.
    await db.query(`TRUNCATE event_outbox CASCADE`);
    await withTransaction(db, async (tx) => {
      await tx.query(`UPDATE building_permit SET status = 'APPROVED' WHERE cadastre_id = $1`, [N]);
      await tx.query(`UPDATE tenant SET confidence = 'MEDIUM' WHERE cadastre_id = $1`, [N]);
      await tx.query(`DELETE FROM owner WHERE cadastre_id = $1`, [N]);
    });
    expect(await outboxOf([sandboxCompany])).toEqual([]);
    expect(eventTypes(await outboxOf([liveCompany]))).toEqual(['BUILDING_PERMIT_CHANGED', 'OWNER_CHANGED', 'TENANT_CHANGED']);
  });

  it('a section of a demo property is the demo property’s: its owners’ changes reach the sandbox', async () => {
    const sandboxD = await subscribe('sandbox', { kind: 'PROPERTY', cadastreId: D });
    await db.query(
      `INSERT INTO owner (country, owner_key, cadastre_id, kind, person_id, row_hash, published_run_id) VALUES ('NO', 'p1', $1, 'PERSON', 'p1', gen_random_uuid(), 'r1')`,
      [D_SECTION],
    );
    expect(await outboxOf([sandboxD])).toEqual([{ subscription_id: sandboxD, event_type: 'OWNER_CHANGED', target_kind: 'PROPERTY', cadastre_id: D, org_id: null }]);
  });

  it('a property that leaves the demo set stops emitting to the sandbox subscribed while it was one', async () => {
    const sandboxD = await subscribe('sandbox', { kind: 'PROPERTY', cadastreId: D });
    await withTransaction(db, async (tx) => {
      await tx.query(`DELETE FROM api_demo_property WHERE cadastre_id = $1`, [D]);
      await changeProperty(tx, D, 'd');
      // Rolled back below: the demo set stays as the other tests need it.
      expect((await tx.query(`SELECT count(*)::int AS n FROM event_outbox WHERE subscription_id = $1`, [sandboxD])).rows[0].n).toBe(0);
      throw new Error('roll back');
    }).catch((error: Error) => {
      if (error.message !== 'roll back') throw error;
    });
  });
});
