import { isCancellation, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import type { AttemptResult } from '../activities/deliveries.js';
import type { DELIVER_WEBHOOK_WORKFLOW, DeliverWebhookInput, DeliverWebhookWorkflow } from '../events/deliver-webhook-workflow.js';

// An attempt is one short POST: a local activity (no task-queue round trip, and it does not
// take one of the few activity slots the ingest activities share). Its own retries cover only
// infrastructure errors (database unreachable); an HTTP failure is a returned result.
const { attemptDelivery } = proxyLocalActivities<typeof activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { failDelivery } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20 },
});

export type DeliveryOutcome = Omit<AttemptResult, 'outcome'> & { outcome: AttemptResult['outcome'] | 'FAILED'; attempts: number };

/**
 * Delivers one event at least once: attempt, and after a failure wait (exponential backoff with
 * ±10% jitter, capped) and attempt again, until a 2xx, until the subscription is deleted or
 * paused (checked by every attempt), or until the retry horizon (24 h by default) has passed:
 * then the delivery is FAILED. Timers are durable: a worker restart does not reset the schedule.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryOutcome> {
  const { retry } = input;
  const started = Date.now();
  let interval = retry.initialIntervalMs;
  for (let attempt = 1; ; attempt++) {
    let result: AttemptResult;
    try {
      result = await attemptDelivery({ eventId: input.eventId, attempt });
    } catch (error) {
      // The attempt itself could not run (database unreachable through all its retries): a
      // failed attempt like any other, retried on the same schedule.
      if (isCancellation(error)) throw error;
      result = { outcome: 'RETRY', error: error instanceof Error ? error.message : String(error) };
    }
    if (result.outcome !== 'RETRY') return { ...result, attempts: attempt };
    const remaining = retry.horizonMs - (Date.now() - started);
    if (remaining <= 0) {
      await failDelivery({ eventId: input.eventId });
      return { ...result, outcome: 'FAILED', attempts: attempt };
    }
    // Workflow Math.random is deterministic (replayed), so jitter is safe here.
    const jittered = interval * (0.9 + 0.2 * Math.random());
    await sleep(Math.max(1, Math.min(jittered, remaining)));
    interval = Math.min(interval * retry.backoffCoefficient, retry.maxIntervalMs);
  }
}

// The dispatcher starts this workflow by the contract's name and input (events/
// deliver-webhook-workflow.ts): a rename or a changed signature fails the type-check here.
void ({ deliverWebhook } satisfies Record<typeof DELIVER_WEBHOOK_WORKFLOW, DeliverWebhookWorkflow>);
