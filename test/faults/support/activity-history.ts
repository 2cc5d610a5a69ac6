import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

/**
 * What a workflow's history says about each activity it scheduled: where it ran and how often it
 * had to be tried. Temporal writes a retried activity's started event once, at its end, with the
 * last attempt's number and the failure of the attempt before it; so an attempt above 1 or a
 * `lastFailure` is an attempt that failed, even when the activity succeeded in the end.
 */
export interface ActivityExecution {
  type: string;
  /** The task queue it was scheduled on. */
  taskQueue: string;
  /** The last attempt's number (0 when it never started). */
  attempt: number;
  /** The identity of the worker that ran the last attempt (lib/temporal/worker-task-queue.ts: it names the worker's queue). */
  identity: string;
  /** Why the attempt before the last failed. */
  lastFailure?: string;
  outcome: 'completed' | 'failed' | 'timed out' | 'cancelled' | 'pending';
  /** The final failure, or the timeout's kind (`SCHEDULE_TO_START` when no worker took it). */
  failure?: string;
}

const TIMEOUT_TYPES = proto.temporal.api.enums.v1.TimeoutType;

export async function activityExecutions(client: Client, workflowId: string): Promise<ActivityExecution[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const byScheduled = new Map<string, ActivityExecution>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      byScheduled.set(String(event.eventId), {
        type: scheduled.activityType?.name ?? '?',
        taskQueue: scheduled.taskQueue?.name ?? '?',
        attempt: 0,
        identity: '',
        outcome: 'pending',
      });
    }
    const started = event.activityTaskStartedEventAttributes;
    const execution = (id: unknown) => byScheduled.get(String(id));
    if (started) {
      const x = execution(started.scheduledEventId);
      if (x) Object.assign(x, { attempt: started.attempt ?? 1, identity: started.identity ?? '', lastFailure: started.lastFailure?.message ?? undefined });
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) Object.assign(execution(completed.scheduledEventId) ?? {}, { outcome: 'completed' });
    const failed = event.activityTaskFailedEventAttributes;
    if (failed) Object.assign(execution(failed.scheduledEventId) ?? {}, { outcome: 'failed', failure: failed.failure?.cause?.message ?? failed.failure?.message ?? undefined });
    const timedOut = event.activityTaskTimedOutEventAttributes;
    if (timedOut) {
      const kind = timedOut.failure?.timeoutFailureInfo?.timeoutType;
      Object.assign(execution(timedOut.scheduledEventId) ?? {}, { outcome: 'timed out', failure: kind === undefined || kind === null ? timedOut.failure?.message : TIMEOUT_TYPES[kind].replace('TIMEOUT_TYPE_', '') });
    }
    const cancelled = event.activityTaskCanceledEventAttributes;
    if (cancelled) Object.assign(execution(cancelled.scheduledEventId) ?? {}, { outcome: 'cancelled' });
  }
  return [...byScheduled.values()];
}
