import type pg from 'pg';
import type { OutboxEvent } from './envelope.js';

/** Queries on event_outbox and webhook_attempt (schema/1763900100000_events.sql). */

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';
/** FAILED: an attempt that can never succeed (a target the policy refuses for good): no retry. */
export type AttemptOutcome = 'DELIVERED' | 'RETRY' | 'CANCELLED' | 'FAILED';

const EVENT_COLUMNS = `o.event_id AS "eventId", o.subscription_id AS "subscriptionId", o.event_type AS "eventType", o.target_kind AS "targetKind",
  o.country, o.cadastre_id AS "cadastreId", o.org_scheme AS "orgScheme", o.org_id AS "orgId", o.changed_field AS "changedField", o.created_at AS "createdAt"`;

export interface DeliveryContext {
  event: OutboxEvent;
  status: DeliveryStatus;
  /** Null when the subscription has been deleted. */
  subscription: { status: 'ACTIVE' | 'PAUSED'; webhookUrl: string; sealedSecret: string; clientDisabled: boolean } | null;
}

/** The event with its subscription as it is now: read before every attempt. */
export async function loadDelivery(db: pg.Pool, eventId: string): Promise<DeliveryContext | undefined> {
  const result = await db.query(
    `SELECT ${EVENT_COLUMNS}, o.status, s.status AS subscription_status, s.webhook_url, s.secret_encrypted, c.disabled_at IS NOT NULL AS client_disabled
     FROM event_outbox o LEFT JOIN subscription s ON s.subscription_id = o.subscription_id
       LEFT JOIN api_client c ON c.client_id = s.client_id
     WHERE o.event_id = $1`,
    [eventId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  const { status, subscription_status, webhook_url, secret_encrypted, client_disabled, ...event } = row;
  return {
    event: event as OutboxEvent,
    status,
    subscription: subscription_status ? { status: subscription_status, webhookUrl: webhook_url, sealedSecret: secret_encrypted, clientDisabled: client_disabled === true } : null,
  };
}

export interface AttemptRecord {
  eventId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode?: number;
  error?: string;
  outcome: AttemptOutcome;
}

/** One attempt and the event's state after it, together. A retried activity rewrites its own attempt. */
export async function recordAttempt(db: pg.Pool, attempt: AttemptRecord): Promise<void> {
  const status: DeliveryStatus = attempt.outcome === 'RETRY' ? 'PENDING' : attempt.outcome;
  await db.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempt (event_id, attempt, started_at, duration_ms, status_code, error, outcome)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (event_id, attempt) DO UPDATE
         SET started_at = EXCLUDED.started_at, duration_ms = EXCLUDED.duration_ms, status_code = EXCLUDED.status_code,
             error = EXCLUDED.error, outcome = EXCLUDED.outcome
     )
     UPDATE event_outbox
     SET status = $8, attempts = greatest(attempts, $2), last_attempt_at = $3, last_status_code = $5, last_error = $6,
         finished_at = CASE WHEN $8 = 'PENDING' THEN NULL ELSE clock_timestamp() END
     WHERE event_id = $1`,
    [attempt.eventId, attempt.attempt, attempt.startedAt, attempt.durationMs, attempt.statusCode ?? null, attempt.error ?? null, attempt.outcome, status],
  );
}

/** No attempt left within the retry horizon. */
export async function markFailed(db: pg.Pool, eventId: string): Promise<void> {
  await db.query(`UPDATE event_outbox SET status = 'FAILED', finished_at = clock_timestamp() WHERE event_id = $1 AND status = 'PENDING'`, [eventId]);
}

/** A delivery ended without a POST (its subscription was deleted or paused first). */
export async function markCancelled(db: pg.Pool, eventId: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE event_outbox SET status = 'CANCELLED', last_error = $2, finished_at = clock_timestamp() WHERE event_id = $1 AND status = 'PENDING'`,
    [eventId, reason],
  );
}

/** Deletes (with their attempts) events finished more than `days` ago, at most `limit` per call. */
export async function pruneFinished(db: pg.Pool, days: number, limit = 10_000): Promise<number> {
  const result = await db.query(
    `DELETE FROM event_outbox WHERE event_id IN (
       SELECT event_id FROM event_outbox WHERE finished_at < now() - make_interval(days => $1) LIMIT $2)`,
    [days, limit],
  );
  return result.rowCount ?? 0;
}

/**
 * The next undispatched events, oldest first, locked for this transaction: concurrent
 * dispatchers take different rows, and a crash before COMMIT leaves them for the next one.
 */
export async function claimUndispatched(client: pg.PoolClient, limit: number): Promise<{ eventId: string; runId: string | null }[]> {
  const result = await client.query(
    `SELECT event_id AS "eventId", run_id AS "runId" FROM event_outbox
     WHERE dispatched_at IS NULL ORDER BY created_at, event_id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return result.rows;
}

export async function markDispatched(client: pg.PoolClient, eventIds: string[]): Promise<void> {
  await client.query(`UPDATE event_outbox SET dispatched_at = clock_timestamp() WHERE event_id = ANY($1::uuid[])`, [eventIds]);
}

export interface DeliveryListing {
  eventId: string;
  subscriptionId: string;
  /** ACTIVE or PAUSED, or DELETED when the subscription no longer exists. */
  subscriptionStatus: string;
  eventType: string;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  runId: string | null;
  createdAt: Date;
  dispatchedAt: Date | null;
  lastAttemptAt: Date | null;
  finishedAt: Date | null;
}

/** Deliveries, newest first: of one subscription, one event, or all. */
export async function listDeliveries(db: pg.Pool, options: { subscriptionId?: string; eventId?: string; limit: number }): Promise<DeliveryListing[]> {
  const params: unknown[] = [options.limit];
  const where: string[] = [];
  if (options.subscriptionId) where.push(`o.subscription_id = $${params.push(options.subscriptionId)}`);
  if (options.eventId) where.push(`o.event_id = $${params.push(options.eventId)}`);
  const result = await db.query(
    `SELECT o.event_id AS "eventId", o.subscription_id AS "subscriptionId", coalesce(s.status, 'DELETED') AS "subscriptionStatus",
            o.event_type AS "eventType",
            CASE o.target_kind WHEN 'PROPERTY' THEN o.country || ' ' || o.cadastre_id ELSE o.org_scheme || ':' || o.org_id END AS target,
            o.status, o.attempts, o.last_status_code AS "lastStatusCode", o.last_error AS "lastError", o.run_id AS "runId",
            o.created_at AS "createdAt", o.dispatched_at AS "dispatchedAt", o.last_attempt_at AS "lastAttemptAt", o.finished_at AS "finishedAt"
     FROM event_outbox o LEFT JOIN subscription s ON s.subscription_id = o.subscription_id
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY o.created_at DESC, o.event_id
     LIMIT $1`,
    params,
  );
  return result.rows;
}

/** Every attempt of one event, first to last. */
export async function listAttempts(db: pg.Pool, eventId: string): Promise<Omit<AttemptRecord, 'eventId'>[]> {
  const result = await db.query(
    `SELECT attempt, started_at AS "startedAt", duration_ms AS "durationMs", status_code AS "statusCode", error, outcome
     FROM webhook_attempt WHERE event_id = $1 ORDER BY attempt`,
    [eventId],
  );
  return result.rows;
}
