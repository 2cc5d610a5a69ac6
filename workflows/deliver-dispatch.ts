import { isCancellation, log, patched, proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';

const { dispatchEvents } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds' },
});

/**
 * Starts the deliveries of the change events a publish wrote, from the workflow that published.
 * A failure here never fails the publishing workflow: the events stay in the outbox and the
 * next dispatch (after any later publish, or `nordprop deliveries dispatch`) starts them.
 */
export async function dispatchPendingEvents(): Promise<void> {
  // Workflows started before this step existed replay without it (their history has no dispatch).
  if (!patched('dispatch-webhook-events')) return;
  try {
    await dispatchEvents();
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('webhook dispatch failed; the events wait in the outbox for the next dispatch', { error: String(error) });
  }
}
