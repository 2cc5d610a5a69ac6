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

/**
 * Opaque random tokens; the store keeps only their SHA-256, so a dump holds no usable token.
 * Issued only while the client still has the secret hash that was verified (`verifiedHash`)
 * and is not disabled: the client row is share-locked, so a rotation, disable or delete either
 * waits for this token and then drops it with the others, or commits first and no token is
 * issued (undefined).
 */
export async function issueToken(db: pg.Pool, clientId: string, scopes: Scope[], verifiedHash: string): Promise<{ token: string; expiresIn: number } | undefined> {
  const token = `npat_${randomBytes(32).toString('base64url')}`;
  const inserted = await db.query(
    `INSERT INTO api_access_token (token_hash, client_id, scopes, expires_at)
     SELECT $1, c.client_id, $3, now() + make_interval(secs => $4)
     FROM (SELECT client_id FROM api_client WHERE client_id = $2 AND secret_hash = $5 AND disabled_at IS NULL FOR SHARE) c`,
    [tokenHash(token), clientId, scopes, TOKEN_LIFETIME_S, verifiedHash],
  );
  if (inserted.rowCount !== 1) return undefined;
  // Expired tokens are useless; sweep some now and then instead of running a janitor.
  if (Math.random() < 0.01) await db.query(`DELETE FROM api_access_token WHERE expires_at < now() - interval '1 day'`);
  return { token, expiresIn: TOKEN_LIFETIME_S };
}

/** How old a process's view of the revocations may be when it trusts its token cache. */
export const REVOCATION_CHECK_MS = 1000;
/**
 * Revocations are read again this far before the last look: a revocation is stamped with the
 * store's clock when its transaction writes it and becomes visible when it commits, a moment
 * later; reading back a minute covers that (and any cache entry resolved in between) for sure.
 */
const REVOCATION_OVERLAP_S = 60;

/**
 * The caller a bearer token stands for, or undefined when it is unknown, expired or revoked.
 * Each process keeps the tokens it has resolved until they expire (bounded), and before it
 * trusts that cache it reads the clients revoked since its last look (disabled, deleted or
 * given a new secret: api_client_revocation), at most every REVOCATION_CHECK_MS; their tokens
 * leave the cache and are resolved again from the store, where a revoked token no longer
 * resolves. So a revocation reaches every API process within about a second, at the cost of one
 * indexed read per process and second (shared by every request that arrives meanwhile).
 */
export class TokenResolver {
  private readonly cache = new Map<string, Caller>();
  /** Date.now() when the last successful look at the revocations started. */
  private revocationsReadAt = -Infinity;
  /** The store's clock at that look; the next look reads from a little before it. */
  private revocationsSince: Date | undefined;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly db: pg.Pool,
    private readonly maxCached = 10_000,
  ) {}

  async resolve(token: string): Promise<Caller | undefined> {
    if (Date.now() - this.revocationsReadAt >= REVOCATION_CHECK_MS) await this.readRevocations();
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
       WHERE t.token_hash = $1 AND t.expires_at > now() AND c.disabled_at IS NULL`,
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

  /** One look at a time; the requests arriving meanwhile wait for the same one. */
  private readRevocations(): Promise<void> {
    this.reading ??= (async () => {
      try {
        const started = Date.now();
        const result = await this.db.query({
          name: 'api-token-revocations',
          text: `SELECT statement_timestamp() AS now,
                        ARRAY(SELECT DISTINCT client_id FROM api_client_revocation
                              WHERE $1::timestamptz IS NOT NULL AND revoked_at > $1::timestamptz - make_interval(secs => $2)) AS revoked`,
          values: [this.revocationsSince ?? null, REVOCATION_OVERLAP_S],
        });
        const revoked = new Set<string>(result.rows[0].revoked);
        if (revoked.size) {
          for (const [token, caller] of this.cache) if (revoked.has(caller.clientId)) this.cache.delete(token);
        }
        // The first look has nothing to evict: the cache is filled only after it.
        this.revocationsSince = result.rows[0].now;
        this.revocationsReadAt = started;
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }
}
