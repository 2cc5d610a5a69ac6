import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Scope } from './scopes.js';

/** Access tokens live 3600 s (the spec's typical `expires_in`). */
export const TOKEN_LIFETIME_S = 3600;

export interface Caller {
  clientId: string;
  tier: string;
  scopes: Scope[];
  sandbox: boolean;
  dailyCallLimit: number;
  burstLimit: number;
  burstWindowS: number;
  expiresAt: number;
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest();

/** Opaque random tokens; the store keeps only their SHA-256, so a dump holds no usable token. */
export async function issueToken(db: pg.Pool, clientId: string, scopes: Scope[]): Promise<{ token: string; expiresIn: number }> {
  const token = `npat_${randomBytes(32).toString('base64url')}`;
  await db.query(
    `INSERT INTO api_access_token (token_hash, client_id, scopes, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [tokenHash(token), clientId, scopes, TOKEN_LIFETIME_S],
  );
  // Expired tokens are useless; sweep some now and then instead of running a janitor.
  if (Math.random() < 0.01) await db.query(`DELETE FROM api_access_token WHERE expires_at < now() - interval '1 day'`);
  return { token, expiresIn: TOKEN_LIFETIME_S };
}

/**
 * The caller a bearer token stands for, or undefined when it is unknown or expired. Tokens never
 * change once issued, so each process keeps the ones it has seen until they expire (bounded).
 */
export class TokenResolver {
  private readonly cache = new Map<string, Caller>();

  constructor(
    private readonly db: pg.Pool,
    private readonly maxCached = 10_000,
  ) {}

  async resolve(token: string): Promise<Caller | undefined> {
    const cached = this.cache.get(token);
    if (cached) {
      if (cached.expiresAt > Date.now()) return cached;
      this.cache.delete(token);
      return undefined;
    }
    const result = await this.db.query(
      `SELECT t.client_id, t.scopes, extract(epoch FROM t.expires_at) * 1000 AS expires_at,
              c.tier, c.sandbox, c.daily_call_limit, c.burst_limit, c.burst_window_s
       FROM api_access_token t JOIN api_client c ON c.client_id = t.client_id
       WHERE t.token_hash = $1 AND t.expires_at > now()`,
      [tokenHash(token)],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const caller: Caller = {
      clientId: row.client_id,
      tier: row.tier,
      scopes: row.scopes,
      sandbox: row.sandbox,
      dailyCallLimit: row.daily_call_limit,
      burstLimit: row.burst_limit,
      burstWindowS: row.burst_window_s,
      expiresAt: Number(row.expires_at),
    };
    if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(token, caller);
    return caller;
  }
}
