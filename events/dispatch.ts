import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type pg from 'pg';
import { withTransaction } from '../lib/db.js';
import { RUN_ID_KEY } from '../lib/temporal/search-attribute-keys.js';
import { DELIVER_WEBHOOK_WORKFLOW, type DeliverWebhookWorkflow } from './deliver-webhook-workflow.js';
import type { RetrySchedule } from './delivery-settings.js';
import { claimUndispatched, markDispatched } from './outbox-store.js';

/** Workflow id of an event's delivery: Temporal refuses a second one, so one workflow delivers an event. */
export const deliveryWorkflowId = (eventId: string) => `webhook-${eventId}`;

const BATCH = 200;
const STARTS_IN_FLIGHT = 16;

/**
 * Starts one `deliverWebhook` workflow per undispatched outbox event, a batch per transaction,
 * until none is left. Rows are locked while their workflows start, so concurrent dispatchers
 * take different events; a crash before COMMIT leaves them to the next dispatch, whose start
 * Temporal then refuses as a duplicate (same workflow id), which counts as started.
 */
export async function dispatchUndispatched(
  options: { db: pg.Pool; client: Client; taskQueue: string; retry: RetrySchedule; onBatch?: (dispatched: number) => void },
): Promise<number> {
  let dispatched = 0;
  for (;;) {
    const started = await withTransaction(options.db, async (tx) => {
      const events = await claimUndispatched(tx, BATCH);
      for (let i = 0; i < events.length; i += STARTS_IN_FLIGHT) {
        await Promise.all(events.slice(i, i + STARTS_IN_FLIGHT).map(({ eventId, runId }) => startDelivery(options, eventId, runId)));
      }
      await markDispatched(tx, events.map((e) => e.eventId));
      return events.length;
    });
    dispatched += started;
    options.onBatch?.(dispatched);
    if (started < BATCH) return dispatched;
  }
}

async function startDelivery(options: { client: Client; taskQueue: string; retry: RetrySchedule }, eventId: string, runId: string | null): Promise<void> {
  try {
    // By name through the contract: events/ sits below workflows/ and never loads workflow code.
    await options.client.workflow.start<DeliverWebhookWorkflow>(DELIVER_WEBHOOK_WORKFLOW, {
      taskQueue: options.taskQueue,
      workflowId: deliveryWorkflowId(eventId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ eventId, retry: options.retry }],
      ...(runId ? { typedSearchAttributes: [{ key: RUN_ID_KEY, value: runId }] } : {}),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
