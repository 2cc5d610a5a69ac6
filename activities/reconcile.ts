import { WorkflowNotFoundError } from '@temporalio/client';
import { getPool } from '../lib/db.js';
import { connectClient } from '../lib/temporal/connection.js';
import { failRunningSourceRuns, openRuns } from '../lib/run-ledger.js';
import { finishRun } from './ledger.js';
import { dropStagingTables } from './staging-table.js';
import type { RunSummary } from './types.js';

export interface AbandonedRun {
  runId: string;
  workflowId: string;
  /** What became of the run's workflow: TERMINATED, TIMED_OUT, … or NOT_FOUND. */
  workflowStatus: string;
  sources: string[];
}

/**
 * Closes the ledger entries whose workflow ended without closing them: a workflow terminated
 * (or timed out) runs no more code, so its run and sources would stay `running` forever and
 * its staging tables would stay behind. Each run started after it does this first: the sources
 * are marked failed with what happened, their staging tables dropped, the run given its outcome.
 */
export async function reconcileAbandonedRuns(): Promise<AbandonedRun[]> {
  const pool = getPool();
  const open = await openRuns(pool);
  if (!open.length) return [];
  const { client, connection } = await connectClient();
  const abandoned: AbandonedRun[] = [];
  try {
    for (const run of open) {
      if (!run.workflowId) continue;
      let status: string;
      try {
        status = (await client.workflow.getHandle(run.workflowId).describe()).status.name;
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        status = 'NOT_FOUND';
      }
      if (status === 'RUNNING') continue;
      const error = `abandoned: workflow ${run.workflowId} ended as ${status} before this source finished (nothing was published by this run after that)`;
      const { sources } = await closeUnfinishedRun(run.runId, error);
      abandoned.push({ runId: run.runId, workflowId: run.workflowId, workflowStatus: status, sources });
      console.warn(`nordprop: run ${run.runId}: ${error}; closed ${sources.join(', ') || 'no source'}`);
    }
  } finally {
    await connection.close();
  }
  return abandoned;
}

/**
 * Closes a run whose sources may still be open: each source still `running` failed with `error`
 * and its staging dropped, the run given its outcome. Returns the sources it closed and the run.
 */
async function closeUnfinishedRun(runId: string, error: string): Promise<{ sources: string[]; summary: RunSummary }> {
  const pool = getPool();
  const sources = await failRunningSourceRuns(pool, runId, error);
  for (const sourceId of sources) await dropStagingTables(pool, sourceId, runId);
  return { sources, summary: await finishRun({ runId }) };
}

/**
 * A run cancelled (`temporal workflow cancel`, or its parent's cancellation) closes its ledger
 * itself on the way out, instead of staying `running` until the next run's reconcile: its
 * sources still open fail as cancelled.
 */
export async function closeCancelledRun(input: { runId: string }): Promise<RunSummary> {
  return (await closeUnfinishedRun(input.runId, 'cancelled before it finished (nothing was published by this run after that)')).summary;
}
