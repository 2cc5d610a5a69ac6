import type { RetrySchedule } from './delivery-settings.js';

/**
 * The contract of the workflow that delivers one change event (workflows/deliver-webhook.ts):
 * the dispatcher below workflows/ starts it by this name with these arguments, typed, without
 * importing workflow code; the workflow checks that it fulfils the contract.
 */
export const DELIVER_WEBHOOK_WORKFLOW = 'deliverWebhook';

export interface DeliverWebhookInput {
  eventId: string;
  retry: RetrySchedule;
}

/** What the dispatcher may rely on: one input; the outcome is the workflow's own business. */
export type DeliverWebhookWorkflow = (input: DeliverWebhookInput) => Promise<unknown>;
