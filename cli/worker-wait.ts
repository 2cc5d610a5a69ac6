import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ingestWorkflowId } from '../workflows/refresh.js';

const { EventType } = proto.temporal.api.enums.v1;
type History = proto.temporal.api.history.v1.IHistory;

/** Time a workflow's tasks sat in the task queue before a worker took them. */
export interface QueuedTime {
  ms: number;
  /** Workflow and activity tasks counted. */
  tasks: number;
  /** Activity tasks on a second or later attempt: not counted (their gap holds the earlier attempts and the backoff). */
  retried: number;
}

/**
 * From a workflow's history: for every workflow task and every activity task, the time from
 * `…TaskScheduled` to `…TaskStarted`, which is how long it waited for a free worker slot (no
 * worker polling, or every slot busy with other sources). An activity's started event is that of
 * its last attempt; a retried one is left out rather than counted with its retries' backoff.
 */
export function queuedTime(history: History): QueuedTime {
  const scheduled = new Map<string, number>();
  const queued: QueuedTime = { ms: 0, tasks: 0, retried: 0 };
  for (const event of history.events ?? []) {
    const at = tsToMs(event.eventTime);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        scheduled.set(String(event.eventId), at);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const attributes = event.workflowTaskStartedEventAttributes ?? event.activityTaskStartedEventAttributes;
        const since = scheduled.get(String(attributes?.scheduledEventId));
        if (since === undefined) break;
        if ((event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1) {
          queued.retried++;
          break;
        }
        queued.ms += Math.max(0, at - since);
        queued.tasks++;
        break;
      }
    }
  }
  return queued;
}

export type WorkerWait =
  | { known: true; method: string; totalMs: number; tasks: number; retried: number; sources: Record<string, number> }
  | { known: false; method: string; reason: string };

export const WORKER_WAIT_METHOD =
  'Temporal history: scheduled → started of each workflow and activity task of the run and its ingest workflows (first attempts)';

/**
 * How long a run waited for workers, from the Temporal histories of its workflow and of each
 * source's ingest workflow (a derive run: its one workflow). Unknown when Temporal does not
 * answer, or no longer holds the histories (they are kept for the namespace's retention period;
 * the ledger has no record of queueing).
 */
export async function workerWait(
  client: Client,
  run: { runId: string; kind: string; workflowId: string | null; sources: string[] },
  deadlineMs = 5000,
): Promise<WorkerWait> {
  const method = WORKER_WAIT_METHOD;
  if (!run.workflowId) return { known: false, method, reason: 'the ledger names no workflow for this run' };
  const history = (workflowId: string) =>
    client.connection.withDeadline(Date.now() + deadlineMs, () => client.workflow.getHandle(workflowId).fetchHistory());
  const children = run.kind === 'derive' ? [] : run.sources;
  try {
    const [parent, ...ingests] = await Promise.all([history(run.workflowId), ...children.map((sourceId) => history(ingestWorkflowId(sourceId, run.runId)).catch(() => undefined))]);
    const total = queuedTime(parent);
    const sources: Record<string, number> = {};
    ingests.forEach((ingest, i) => {
      if (!ingest) return; // never started (the run ended first)
      const own = queuedTime(ingest);
      sources[children[i]] = own.ms;
      total.ms += own.ms;
      total.tasks += own.tasks;
      total.retried += own.retried;
    });
    return { known: true, method, totalMs: total.ms, tasks: total.tasks, retried: total.retried, sources };
  } catch (error) {
    // The raw service call: gRPC status 5 is NOT_FOUND.
    const reason =
      (error as { code?: number }).code === 5
        ? `Temporal no longer holds workflow ${run.workflowId} (histories are kept for the namespace's retention period)`
        : `Temporal did not answer (${(error as Error).message.split('\n')[0]})`;
    return { known: false, method, reason };
  }
}
