import { createHash } from 'node:crypto';
import type pg from 'pg';
import { withTransaction } from '../lib/db.js';
import { ApiProblem } from './problem.js';

export interface StoredResponse {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Canonical JSON (sorted keys), so the same body in another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const REPLAY_WINDOW_HOURS = 24;

/**
 * Runs a POST once per (client, Idempotency-Key) within 24 hours. The work runs inside the same
 * transaction that records its response, under an advisory lock on the key: a concurrent
 * duplicate waits, then finds the stored response and replays it, so it never creates a second
 * resource. The same key with another operation or body is 409.
 */
export async function idempotent(
  db: pg.Pool,
  scope: { clientId: string; key: string; operation: string; body: unknown },
  work: (client: pg.PoolClient) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const requestHash = createHash('sha256').update(`${scope.operation}\n${canonical(scope.body)}`).digest('hex');
  return withTransaction(db, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idempotency:${scope.clientId}:${scope.key}`]);
    const existing = await client.query(
      `SELECT request_hash, status_code, response, created_at > now() - make_interval(hours => $3) AS fresh
       FROM api_idempotency WHERE client_id = $1 AND idempotency_key = $2`,
      [scope.clientId, scope.key, REPLAY_WINDOW_HOURS],
    );
    const record = existing.rows[0];
    if (record?.fresh) {
      if (record.request_hash !== requestHash) {
        throw new ApiProblem(409, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request in the last 24 hours');
      }
      return { statusCode: record.status_code, body: record.response.body, headers: record.response.headers, replayed: true };
    }
    const response = await work(client);
    await client.query(
      `INSERT INTO api_idempotency (client_id, idempotency_key, operation, request_hash, status_code, response)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (client_id, idempotency_key) DO UPDATE
         SET operation = EXCLUDED.operation, request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
             response = EXCLUDED.response, created_at = now()`,
      [scope.clientId, scope.key, scope.operation, requestHash, response.statusCode, { body: response.body, headers: response.headers ?? {} }],
    );
    if (Math.random() < 0.01) await client.query(`DELETE FROM api_idempotency WHERE created_at < now() - make_interval(hours => $1)`, [REPLAY_WINDOW_HOURS]);
    return { ...response, replayed: false };
  });
}

/** The Idempotency-Key header's schema: required, a client-generated UUID. */
export const idempotencyHeaders = {
  type: 'object',
  required: ['idempotency-key'],
  properties: { 'idempotency-key': { type: 'string', format: 'uuid', description: 'Client-generated UUID; the same key and body within 24 h replays the response' } },
} as const;
