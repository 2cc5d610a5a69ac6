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
}

export async function listClients(db: pg.Pool): Promise<ClientSummary[]> {
  const result = await db.query(
    `SELECT c.client_id, c.name, c.tier, c.scopes, c.sandbox, c.daily_call_limit, c.burst_limit, c.created_at,
            api_calls_today(c.client_id) AS calls_today
     FROM api_client c
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
  }));
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
