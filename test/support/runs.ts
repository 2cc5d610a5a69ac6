import type { Client } from '@temporalio/client';
import type { RunSummary } from '../../activities/types.js';
import { deriveDatasets, type DeriveInput } from '../../workflows/derive.js';
import { backfill, nightlyRefresh, type BackfillInput, type RefreshInput } from '../../workflows/refresh.js';

let counter = 0;

/**
 * A run id no other test process takes: the test files share one Temporal server, and two
 * processes starting a run in the same millisecond with the same count took the same workflow
 * id (WorkflowExecutionAlreadyStartedError in a clean-clone CI run).
 */
const newRunId = () => `t${Date.now()}-${process.pid}-${counter++}`;

// Started by function, as the CLI does, so a test's arguments are checked against the workflow's.
export async function runRefresh(client: Client, taskQueue: string, args: Omit<RefreshInput, 'runId'> = {}): Promise<RunSummary> {
  const runId = newRunId();
  return client.workflow.execute(nightlyRefresh, { taskQueue, workflowId: `refresh-${runId}`, args: [{ runId, ...args }] });
}

export async function runBackfill(client: Client, taskQueue: string, args: Omit<BackfillInput, 'runId'>): Promise<RunSummary> {
  const runId = newRunId();
  return client.workflow.execute(backfill, { taskQueue, workflowId: `backfill-${runId}`, args: [{ runId, ...args }] });
}

export async function runDerive(client: Client, taskQueue: string, args: Omit<DeriveInput, 'runId'> = {}): Promise<RunSummary> {
  const runId = newRunId();
  return client.workflow.execute(deriveDatasets, { taskQueue, workflowId: `derive-${runId}`, args: [{ runId, ...args }] });
}

export function sourceOf(summary: RunSummary, sourceId: string) {
  const found = summary.sources.find((s) => s.sourceId === sourceId);
  if (!found) throw new Error(`run ${summary.runId} has no source ${sourceId}`);
  return found;
}
