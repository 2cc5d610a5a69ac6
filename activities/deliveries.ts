import { Context } from '@temporalio/activity';
import { loadConfig, type Config } from '../lib/config.js';
import { getPool } from '../lib/db.js';
import { deriveKey, loadMasterKey } from '../lib/secrets/master-key.js';
import { openSecret } from '../lib/secrets/secret-box.js';
import { envelopeOf } from '../events/envelope.js';
import { SIGNATURE_HEADER, signatureHeader } from '../events/signature.js';
import { WebhookPoster } from '../events/post-webhook.js';
import { TargetPolicy } from '../events/target-policy.js';
import { loadDeliverySettings } from '../events/delivery-settings.js';
import { dispatchUndispatched } from '../events/dispatch.js';
import { loadDelivery, markCancelled, markFailed, pruneFinished, recordAttempt, type AttemptOutcome } from '../events/outbox-store.js';

/**
 * Starts the deliveries of every undispatched outbox event (events/dispatch.ts). Run after each
 * publish; any run picks up what an earlier one left.
 */
export async function dispatchEvents(): Promise<{ dispatched: number; pruned: number }> {
  const config = loadConfig();
  const settings = loadDeliverySettings();
  const dispatched = await dispatchUndispatched({
    db: getPool(),
    client: Context.current().client,
    taskQueue: config.taskQueue,
    retry: settings.retry,
    onBatch: (count) => Context.current().heartbeat({ dispatched: count }),
  });
  // Finished deliveries are kept for `nordprop deliveries` as long as configured, then removed.
  const pruned = await pruneFinished(getPool(), settings.retentionDays);
  return { dispatched, pruned };
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode?: number;
  error?: string;
}

const posters = new Map<string, WebhookPoster>();
const secretKeys = new Map<string, Buffer>();

function posterFor(timeoutMs: number, caFile: string | undefined, allowedHosts: string[]): WebhookPoster {
  const key = JSON.stringify([timeoutMs, caFile ?? '', allowedHosts]);
  let poster = posters.get(key);
  if (!poster) posters.set(key, (poster = new WebhookPoster(timeoutMs, caFile, new TargetPolicy(allowedHosts))));
  return poster;
}

/** The key that opens webhook secrets: derived from the API's master key, as the API sealed them. */
function secretKey(config: Config): Buffer {
  const id = config.api.masterKey ?? config.dataDir;
  let key = secretKeys.get(id);
  if (!key) secretKeys.set(id, (key = deriveKey(loadMasterKey(config), 'webhook-secret')));
  return key;
}

/**
 * One delivery attempt: checks the subscription still exists and is active (a deleted or
 * paused subscription, or one of a disabled client, receives nothing more), then POSTs the signed event. An HTTP failure is
 * returned, not thrown: the workflow decides when to try again. Attempt and state are recorded.
 * A target the policy refuses (events/target-policy.ts) is a failed attempt with no connection
 * made: retried when a later DNS answer could change it, FAILED at once when none can (an
 * address written in the URL, a loopback name).
 */
export async function attemptDelivery(input: { eventId: string; attempt: number }): Promise<AttemptResult> {
  const config = loadConfig();
  const settings = loadDeliverySettings();
  const db = getPool();
  const delivery = await loadDelivery(db, input.eventId);
  if (!delivery) return { outcome: 'CANCELLED', error: 'event no longer in the outbox' };
  // A local activity retried after it recorded its result: report that result again.
  if (delivery.status !== 'PENDING') return { outcome: delivery.status, error: `already ${delivery.status}` };
  const { subscription } = delivery;
  // A disabled client (nordprop clients disable) receives nothing either, as its tokens stop working.
  if (!subscription || subscription.status !== 'ACTIVE' || subscription.clientDisabled) {
    const reason = !subscription ? 'subscription deleted' : subscription.clientDisabled ? 'client disabled' : 'subscription paused';
    await markCancelled(db, input.eventId, reason);
    return { outcome: 'CANCELLED', error: reason };
  }

  const body = Buffer.from(JSON.stringify(envelopeOf(delivery.event, config.api.baseUrl)));
  const startedAt = new Date();
  let secret: string;
  try {
    secret = openSecret(secretKey(config), subscription.sealedSecret);
  } catch {
    // Sealed under another master key: a configuration error, worth retrying once it is fixed.
    const error = 'cannot open the subscription secret: this worker’s NORDPROP_API_MASTER_KEY is not the API’s';
    await recordAttempt(db, { eventId: input.eventId, attempt: input.attempt, startedAt, durationMs: 0, error, outcome: 'RETRY' });
    return { outcome: 'RETRY', error };
  }
  let poster: WebhookPoster;
  try {
    poster = posterFor(settings.timeoutMs, settings.caFile, config.webhooks.allowedHosts);
  } catch (cause) {
    // A malformed NORDPROP_WEBHOOK_ALLOWED_HOSTS (or CA file): a configuration error, worth retrying once it is fixed.
    const error = cause instanceof Error ? cause.message : String(cause);
    await recordAttempt(db, { eventId: input.eventId, attempt: input.attempt, startedAt, durationMs: 0, error, outcome: 'RETRY' });
    return { outcome: 'RETRY', error };
  }
  const response = await poster.post(
    subscription.webhookUrl,
    {
      'content-type': 'application/cloudevents+json; charset=utf-8',
      'user-agent': 'nordprop-webhooks/1',
      [SIGNATURE_HEADER]: signatureHeader(secret, body, startedAt),
    },
    body,
  );
  const ok = response.statusCode !== undefined && response.statusCode >= 200 && response.statusCode < 300;
  const error = ok ? undefined : (response.error ?? `HTTP ${response.statusCode}`);
  const outcome: AttemptOutcome = ok ? 'DELIVERED' : response.refused?.permanent ? 'FAILED' : 'RETRY';
  await recordAttempt(db, { eventId: input.eventId, attempt: input.attempt, startedAt, durationMs: response.durationMs, statusCode: response.statusCode, error, outcome });
  return { outcome, statusCode: response.statusCode, error };
}

/** The retry horizon passed without a 2xx. */
export async function failDelivery(input: { eventId: string }): Promise<void> {
  await markFailed(getPool(), input.eventId);
}
