import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export type SubscriptionTarget =
  | { kind: 'PROPERTY'; country: string; cadastreId: string }
  | { kind: 'COMPANY'; scheme: string; id: string };

export interface NewSubscription {
  target: SubscriptionTarget;
  events: string[];
  webhookUrl: string;
  /** Already sealed (secret-box.ts); the clear secret never reaches the store. */
  sealedSecret: string;
}

const SUBSCRIPTION_JSON = `json_strip_nulls(json_build_object(
  'id', s.subscription_id,
  'target', CASE s.target_kind
              WHEN 'PROPERTY' THEN json_build_object('kind', 'PROPERTY', 'country', s.target_country, 'cadastreId', s.target_cadastre_id)
              ELSE json_build_object('kind', 'COMPANY', 'scheme', s.target_scheme, 'id', s.target_id) END,
  'events', to_json(s.events), 'webhookUrl', s.webhook_url, 'status', s.status, 'createdAt', api_timestamp(s.created_at)))`;

export async function insertSubscription(db: pg.PoolClient, clientId: string, subscription: NewSubscription): Promise<Record<string, unknown>> {
  const t = subscription.target;
  const result = await db.query(
    `INSERT INTO subscription AS s (subscription_id, client_id, target_kind, target_country, target_cadastre_id, target_scheme, target_id, events, webhook_url, secret_encrypted)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING ${SUBSCRIPTION_JSON} AS subscription`,
    [
      randomUUID(), clientId, t.kind,
      t.kind === 'PROPERTY' ? t.country : null, t.kind === 'PROPERTY' ? t.cadastreId : null,
      t.kind === 'COMPANY' ? t.scheme : null, t.kind === 'COMPANY' ? t.id : null,
      subscription.events, subscription.webhookUrl, subscription.sealedSecret,
    ],
  );
  return result.rows[0].subscription;
}

/**
 * How many subscriptions (active and paused) the client has, counted under a transaction lock per
 * client: concurrent creations of one client are counted one after the other, so none passes the
 * limit. Call in the transaction that inserts.
 */
export async function lockedSubscriptionCount(db: pg.PoolClient, clientId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`subscriptions:${clientId}`]);
  const result = await db.query(`SELECT count(*)::int AS n FROM subscription WHERE client_id = $1`, [clientId]);
  return result.rows[0].n;
}

/** The caller's own subscriptions, active and paused, oldest first. */
export async function listSubscriptions(db: pg.Pool, clientId: string): Promise<unknown[]> {
  const result = await db.query(`SELECT ${SUBSCRIPTION_JSON} AS subscription FROM subscription s WHERE s.client_id = $1 ORDER BY s.created_at, s.subscription_id`, [clientId]);
  return result.rows.map((row) => row.subscription);
}

/** Deletes the caller's subscription; false when it has none by that id (another tenant's included). */
export async function deleteSubscription(db: pg.Pool, clientId: string, subscriptionId: string): Promise<boolean> {
  const result = await db.query(`DELETE FROM subscription WHERE client_id = $1 AND subscription_id = $2`, [clientId, subscriptionId]);
  return result.rowCount === 1;
}
