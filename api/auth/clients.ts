import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { hashSecret } from './secret-hash.js';
import { type Scope } from './scopes.js';
import { TIERS, type Tier } from './tiers.js';

export interface NewClient {
  scopes: Scope[];
  tier: Tier;
  sandbox: boolean;
  name?: string;
  dailyCallLimit?: number;
  burstLimit?: number;
}

export interface IssuedCredentials {
  clientId: string;
  /** Shown once; only its scrypt hash is stored. */
  clientSecret: string;
  tier: Tier;
  scopes: Scope[];
  sandbox: boolean;
  dailyCallLimit: number;
  burstLimit: number;
}

// Live and test (sandbox) credentials are told apart by their prefix, as the spec's credentials are.
const prefix = (sandbox: boolean) => (sandbox ? 'test' : 'live');

export async function createClient(db: pg.Pool, options: NewClient): Promise<IssuedCredentials> {
  const limits = TIERS[options.tier];
  const clientId = `np_${prefix(options.sandbox)}_${randomBytes(10).toString('hex')}`;
  const clientSecret = `npsk_${prefix(options.sandbox)}_${randomBytes(24).toString('base64url')}`;
  const dailyCallLimit = options.dailyCallLimit ?? limits.dailyCallLimit;
  const burstLimit = options.burstLimit ?? limits.burstLimit;
  await db.query(
    `INSERT INTO api_client (client_id, secret_hash, name, tier, scopes, daily_call_limit, burst_limit, sandbox)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [clientId, await hashSecret(clientSecret), options.name ?? null, options.tier, options.scopes, dailyCallLimit, burstLimit, options.sandbox],
  );
  if (options.sandbox) await ensureDemoProperties(db);
  return { clientId, clientSecret, tier: options.tier, scopes: options.scopes, sandbox: options.sandbox, dailyCallLimit, burstLimit };
}

export interface ClientSummary {
  clientId: string;
  name: string | null;
  tier: string;
  scopes: string[];
  sandbox: boolean;
  dailyCallLimit: number;
  burstLimit: number;
  callsToday: number;
  createdAt: string;
  /** When it was disabled (`nordprop clients disable`), or null. */
  disabledAt: string | null;
  /** When its secret was last replaced (`nordprop clients rotate-secret`), or null. */
  secretRotatedAt: string | null;
}

export async function listClients(db: pg.Pool): Promise<ClientSummary[]> {
  const result = await db.query(
    `SELECT c.client_id, c.name, c.tier, c.scopes, c.sandbox, c.daily_call_limit, c.burst_limit, c.created_at, c.disabled_at, c.secret_rotated_at,
            api_calls_today(c.client_id) AS calls_today
     FROM api_client c
     WHERE c.deleted_at IS NULL
     ORDER BY c.created_at, c.client_id`,
  );
  return result.rows.map((row) => ({
    clientId: row.client_id,
    name: row.name,
    tier: row.tier,
    scopes: row.scopes,
    sandbox: row.sandbox,
    dailyCallLimit: row.daily_call_limit,
    burstLimit: row.burst_limit,
    callsToday: row.calls_today,
    createdAt: (row.created_at as Date).toISOString(),
    disabledAt: row.disabled_at ? (row.disabled_at as Date).toISOString() : null,
    secretRotatedAt: row.secret_rotated_at ? (row.secret_rotated_at as Date).toISOString() : null,
  }));
}

/**
 * What a lifecycle change did: `changed` false when the client was already in that state (a
 * second disable), `found` false when there is no such client.
 */
export interface LifecycleResult {
  clientId: string;
  found: boolean;
  changed: boolean;
}

/**
 * The lifecycle changes run in one transaction with their revocation (api_client_revocation):
 * the client row changes, its tokens are deleted, and every API process drops the tokens it
 * cached within about a second (api/auth/tokens.ts TokenResolver). The row lock of the change
 * orders it against a token being issued at that moment (issueToken share-locks the row).
 */
async function inTransaction<T>(db: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const tx = await db.connect();
  try {
    await tx.query('BEGIN');
    const result = await work(tx);
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    await tx.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    tx.release();
  }
}

const revoke = (tx: pg.PoolClient, clientId: string, reason: 'DISABLED' | 'DELETED' | 'SECRET_ROTATED') =>
  tx.query(`INSERT INTO api_client_revocation (client_id, reason) VALUES ($1, $2)`, [clientId, reason]);

/** Disables a client: its tokens stop working on every API process, and the token endpoint refuses it, until `enableClient`. */
export async function disableClient(db: pg.Pool, clientId: string): Promise<LifecycleResult> {
  return inTransaction(db, async (tx) => {
    const found = await tx.query(`SELECT disabled_at FROM api_client WHERE client_id = $1 AND deleted_at IS NULL FOR UPDATE`, [clientId]);
    if (!found.rowCount) return { clientId, found: false, changed: false };
    if (found.rows[0].disabled_at) return { clientId, found: true, changed: false };
    await tx.query(`UPDATE api_client SET disabled_at = now() WHERE client_id = $1`, [clientId]);
    await tx.query(`DELETE FROM api_access_token WHERE client_id = $1`, [clientId]);
    await revoke(tx, clientId, 'DISABLED');
    return { clientId, found: true, changed: true };
  });
}

/** Lets a disabled client request tokens again (the tokens it had stay revoked). */
export async function enableClient(db: pg.Pool, clientId: string): Promise<LifecycleResult> {
  const result = await db.query(
    `UPDATE api_client c SET disabled_at = NULL
     FROM (SELECT client_id, disabled_at FROM api_client WHERE client_id = $1 AND deleted_at IS NULL FOR UPDATE) before
     WHERE c.client_id = before.client_id
     RETURNING before.disabled_at IS NOT NULL AS was_disabled`,
    [clientId],
  );
  if (!result.rowCount) return { clientId, found: false, changed: false };
  return { clientId, found: true, changed: result.rows[0].was_disabled };
}

/**
 * Deletes a client: its secret, tokens, subscriptions and stored idempotent responses go; the
 * row stays as a tombstone (`deleted_at`, no secret), so requests of it still in flight are
 * counted against a row that exists. A deleted client is gone for every verb and the API.
 */
export async function deleteClient(db: pg.Pool, clientId: string): Promise<LifecycleResult> {
  return inTransaction(db, async (tx) => {
    const found = await tx.query(`SELECT 1 FROM api_client WHERE client_id = $1 AND deleted_at IS NULL FOR UPDATE`, [clientId]);
    if (!found.rowCount) return { clientId, found: false, changed: false };
    await tx.query(
      `UPDATE api_client SET deleted_at = now(), disabled_at = coalesce(disabled_at, now()), secret_hash = 'deleted', scopes = '{}' WHERE client_id = $1`,
      [clientId],
    );
    await tx.query(`DELETE FROM api_access_token WHERE client_id = $1`, [clientId]);
    await tx.query(`DELETE FROM subscription WHERE client_id = $1`, [clientId]);
    await tx.query(`DELETE FROM api_idempotency WHERE client_id = $1`, [clientId]);
    await revoke(tx, clientId, 'DELETED');
    return { clientId, found: true, changed: true };
  });
}

/**
 * A new secret for a client (shown once; only its hash is stored). Every token issued with the
 * old secret stops working on every API process within about a second.
 */
export async function rotateClientSecret(db: pg.Pool, clientId: string): Promise<{ clientId: string; clientSecret: string } | undefined> {
  return inTransaction(db, async (tx) => {
    const found = await tx.query(`SELECT sandbox FROM api_client WHERE client_id = $1 AND deleted_at IS NULL FOR UPDATE`, [clientId]);
    if (!found.rowCount) return undefined;
    const clientSecret = `npsk_${prefix(found.rows[0].sandbox)}_${randomBytes(24).toString('base64url')}`;
    await tx.query(`UPDATE api_client SET secret_hash = $2, secret_rotated_at = now() WHERE client_id = $1`, [clientId, await hashSecret(clientSecret)]);
    await tx.query(`DELETE FROM api_access_token WHERE client_id = $1`, [clientId]);
    await revoke(tx, clientId, 'SECRET_ROTATED');
    return { clientId, clientSecret };
  });
}

/** How many properties per country a sandbox sees when none were chosen by hand. */
export const DEMO_PROPERTIES_PER_COUNTRY = 25;

/**
 * Sandbox clients see only demo properties. When none are flagged yet, flag the first properties
 * (by id) of each country that have an address, so a sandbox has something to resolve.
 */
export async function ensureDemoProperties(db: pg.Pool): Promise<number> {
  const existing = await db.query(`SELECT count(*)::int AS n FROM api_demo_property`);
  if (existing.rows[0].n > 0) return existing.rows[0].n;
  const inserted = await db.query(
    `INSERT INTO api_demo_property (country, cadastre_id)
     SELECT country, cadastre_id FROM (
       SELECT country, cadastre_id, row_number() OVER (PARTITION BY country ORDER BY cadastre_id) AS n
       FROM (SELECT DISTINCT a.country, a.cadastre_id FROM address a
             JOIN property p ON p.country = a.country AND p.cadastre_id = a.cadastre_id) with_address
     ) ranked
     WHERE n <= $1
     ON CONFLICT DO NOTHING`,
    [DEMO_PROPERTIES_PER_COUNTRY],
  );
  return inserted.rowCount ?? 0;
}
