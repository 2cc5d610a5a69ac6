import type { ActivityOptions } from '@temporalio/workflow';

/**
 * The short bookkeeping activities (the run ledger, a staging table's drop, the plan): a few
 * statements each. They beat on a timer (activities/index.ts), so a worker killed in the middle
 * of one is noticed after the heartbeat timeout and another worker retries it (each is
 * idempotent); without it the run stood still for the whole start-to-close timeout.
 */
export const BOOKKEEPING: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
};
