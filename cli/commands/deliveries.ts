import { getPool } from '../../lib/db.js';
import { loadConfig } from '../../lib/config.js';
import { connectClient } from '../../lib/temporal/connection.js';
import { loadDeliverySettings } from '../../events/delivery-settings.js';
import { dispatchUndispatched } from '../../events/dispatch.js';
import { listAttempts, listDeliveries } from '../../events/outbox-store.js';
import { printJson, printTable } from '../output.js';

/**
 * `nordprop deliveries [--subscription ID]`: webhook deliveries, newest first, with their
 * subscription's state. The subscription id is a UUID (cli/arguments.ts uuid).
 */
export async function listDeliveriesCommand(options: { subscription?: string; limit: number; json: boolean }): Promise<number> {
  const pool = getPool();
  const items = await listDeliveries(pool, { subscriptionId: options.subscription, limit: options.limit });
  let subscription: Record<string, unknown> | undefined;
  if (options.subscription) {
    const row = (await pool.query(
      `SELECT subscription_id AS id, status, webhook_url AS "webhookUrl", events,
              CASE target_kind WHEN 'PROPERTY' THEN target_country || ' ' || target_cadastre_id ELSE target_scheme || ':' || target_id END AS target
       FROM subscription WHERE subscription_id = $1`,
      [options.subscription],
    )).rows[0];
    if (!row && !items.length) {
      console.error(`no subscription ${options.subscription} and no deliveries for it`);
      return 1;
    }
    // A deleted subscription's deliveries stay listed.
    subscription = row ?? { id: options.subscription, status: 'DELETED' };
  }
  if (options.json) {
    printJson(subscription ? { subscription, items } : { items });
    return 0;
  }
  if (subscription) {
    const s = subscription;
    console.log(`subscription ${s.id}: ${s.status}${s.target ? `, ${s.target}, ${(s.events as string[]).join(' ')} → ${s.webhookUrl}` : ''}`);
  }
  printTable(items.map((d) => ({
    event: d.eventId,
    ...(subscription ? {} : { subscription: `${d.subscriptionId} (${d.subscriptionStatus})` }),
    type: d.eventType,
    target: d.target,
    status: d.status,
    attempts: d.attempts,
    last: d.lastStatusCode ?? d.lastError ?? '',
    created: d.createdAt.toISOString(),
    finished: d.finishedAt?.toISOString() ?? '',
  })));
  return 0;
}

/** `nordprop deliveries show EVENT_ID`: every attempt of one delivery (the id a UUID, cli/arguments.ts uuid). */
export async function showDeliveryCommand(eventId: string, options: { json: boolean }): Promise<number> {
  const pool = getPool();
  const [listing] = await listDeliveries(pool, { eventId, limit: 1 });
  if (!listing) {
    console.error(`no event ${eventId}; list deliveries with: nordprop deliveries`);
    return 1;
  }
  const attempts = await listAttempts(pool, eventId);
  if (options.json) {
    printJson({ ...listing, attempts });
    return 0;
  }
  console.log(`event ${eventId}: ${listing.eventType} on ${listing.target}, ${listing.status} after ${listing.attempts} attempt(s); subscription ${listing.subscriptionId} (${listing.subscriptionStatus})`);
  if (listing.lastError && listing.status !== 'DELIVERED') console.log(`  last error: ${listing.lastError}`);
  printTable(attempts.map((a) => ({ attempt: a.attempt, started: a.startedAt.toISOString(), ms: a.durationMs, status: a.statusCode ?? '', outcome: a.outcome, error: a.error ?? '' })));
  return 0;
}

/** `nordprop deliveries dispatch`: start the deliveries of events no publish has dispatched yet. */
export async function dispatchCommand(options: { json: boolean }): Promise<number> {
  const config = loadConfig();
  const { client, connection } = await connectClient(config);
  try {
    const dispatched = await dispatchUndispatched({ db: getPool(), client, taskQueue: config.taskQueue, retry: loadDeliverySettings().retry });
    if (options.json) printJson({ dispatched });
    else console.log(`started ${dispatched} deliver${dispatched === 1 ? 'y' : 'ies'} on task queue ${config.taskQueue}`);
    return 0;
  } finally {
    await connection.close();
  }
}
