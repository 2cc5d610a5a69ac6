import { WorkflowNotFoundError } from '@temporalio/client';
import { getPool } from '../lib/db.js';
import { connectClient } from '../lib/temporal/connection.js';
import { finishRun } from './ledger.js';
import { stagingTableName } from './staging-table.js';

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
  const open = await pool.query<{ run_id: string; workflow_id: string | null }>(`SELECT run_id, workflow_id FROM run WHERE outcome = 'running' ORDER BY started_at`);
  if (!open.rowCount) return [];
  const { client, connection } = await connectClient();
  const abandoned: AbandonedRun[] = [];
  try {
    for (const run of open.rows) {
      if (!run.workflow_id) continue;
      let status: string;
      try {
        status = (await client.workflow.getHandle(run.workflow_id).describe()).status.name;
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        status = 'NOT_FOUND';
      }
      if (status === 'RUNNING') continue;
      const error = `abandoned: workflow ${run.workflow_id} ended as ${status} before this source finished (nothing was published by this run after that)`;
      const closed = await pool.query<{ source_id: string }>(
        `UPDATE source_run SET outcome = 'failed', error = $2, finished_at = now() WHERE run_id = $1 AND outcome = 'running' RETURNING source_id`,
        [run.run_id, error],
      );
      const sources = closed.rows.map((row) => row.source_id);
      for (const sourceId of sources) await pool.query(`DROP TABLE IF EXISTS ${stagingTableName(sourceId, run.run_id)}`);
      await finishRun({ runId: run.run_id });
      abandoned.push({ runId: run.run_id, workflowId: run.workflow_id, workflowStatus: status, sources });
      console.warn(`nordprop: run ${run.run_id}: ${error}; closed ${sources.join(', ') || 'no source'}`);
    }
  } finally {
    await connection.close();
  }
  return abandoned;
}
