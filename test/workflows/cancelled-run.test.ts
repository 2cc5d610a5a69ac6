/**
 * A run cancelled while its sources run (`temporal workflow cancel`, or its parent's
 * cancellation) closes its ledger on the way out (workflows/finish-run.ts, closingOnCancel):
 * before, `nordprop runs` showed it running until the next run's reconcile found its workflow
 * closed.
 */
import pg from 'pg';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { backfill } from '../../workflows/refresh.js';

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

/** Polls `check` until it holds, or fails after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a cancelled run', () => {
  it('closes its run and its open sources in the ledger, failed as cancelled', async () => {
    const runId = `cancelled-${Date.now()}-${process.pid}`;
    // The live table locked: the run's validation waits on it, mid-run, until the test lets go.
    const lock = new pg.Client({ connectionString: pipeline.databaseUrl });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE address IN ACCESS EXCLUSIVE MODE');
    const lockPid = (await lock.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    try {
      const handle = await pipeline.client.workflow.start(backfill, {
        taskQueue: pipeline.taskQueue, workflowId: `backfill-${runId}`, args: [{ runId, sourceId: 'no-address', input: REAL_ADDRESS_ZIP }],
      });
      await until('the run to wait for the locked table', async () =>
        (await pipeline.pool.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%address%' AND pid <> $1`, [lockPid])).rowCount! > 0,
      );
      expect((await pipeline.pool.query(`SELECT outcome FROM run WHERE run_id = $1`, [runId])).rows).toEqual([{ outcome: 'running' }]);

      await handle.cancel();
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);

      const run = (await pipeline.pool.query(`SELECT outcome, finished_at FROM run WHERE run_id = $1`, [runId])).rows[0];
      expect(run.outcome).toBe('failed');
      expect(run.finished_at).not.toBeNull();
      const source = (await pipeline.pool.query(`SELECT outcome, error FROM source_run WHERE run_id = $1 AND source_id = 'no-address'`, [runId])).rows[0];
      expect(source.outcome).toBe('failed');
      expect(source.error).toMatch(/cancelled before it finished/);
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }
  });
});
