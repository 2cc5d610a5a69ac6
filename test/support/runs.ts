import type { Client } from '@temporalio/client';
import type { RunSummary } from '../../activities/types.js';

let counter = 0;

export async function runRefresh(client: Client, taskQueue: string, args: Record<string, unknown> = {}): Promise<RunSummary> {
  const runId = `t${Date.now()}-${counter++}`;
  return client.workflow.execute('nightlyRefresh', { taskQueue, workflowId: `refresh-${runId}`, args: [{ runId, ...args }] });
}

export async function runBackfill(client: Client, taskQueue: string, args: { sourceId: string; input: string; force?: boolean; expectedSha256?: string }): Promise<RunSummary> {
  const runId = `t${Date.now()}-${counter++}`;
  return client.workflow.execute('backfill', { taskQueue, workflowId: `backfill-${runId}`, args: [{ runId, ...args }] });
}

export function sourceOf(summary: RunSummary, sourceId: string) {
  const found = summary.sources.find((s) => s.sourceId === sourceId);
  if (!found) throw new Error(`run ${summary.runId} has no source ${sourceId}`);
  return found;
}
