import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type pg from 'pg';
import type { RunSummary } from '../activities/types.js';
import { ledgerEntry, type LedgerEntry } from './database.js';
import { timed } from './stats.js';

/**
 * One pipeline run driven the way a user drives it: a workflow started through the Temporal
 * client, timed from the start request until its result arrives.
 */

export interface PipelineClient {
  client: Client;
  close(): Promise<void>;
}

export async function connectPipelineClient(address: string): Promise<PipelineClient> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
}

export interface PipelineRun {
  runId: string;
  seconds: number;
  summary: RunSummary;
  /** Per source in the run, what the ledger recorded. */
  ledger: Record<string, LedgerEntry>;
}

/**
 * A run still going at its time limit: the workflow was terminated (its activity may still be
 * running in the worker and in PostgreSQL; the caller stops those). `runId` reads its ledger.
 */
export class PipelineTimeout extends Error {
  constructor(readonly runId: string, readonly seconds: number) {
    super(`run ${runId} still running after ${seconds.toFixed(0)} s: terminated`);
    this.name = 'PipelineTimeout';
  }
}

let sequence = 0;
function benchRunId(label: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `bench-${label}-${stamp}-${++sequence}`;
}

async function execute(
  pipeline: PipelineClient,
  pool: pg.Pool,
  taskQueue: string,
  workflow: 'backfill' | 'nightlyRefresh',
  label: string,
  args: Record<string, unknown>,
  sourceIds: string[],
  timeoutSeconds?: number,
): Promise<PipelineRun> {
  const runId = benchRunId(label);
  const { seconds, result: summary } = await timed(async () => {
    const handle = await pipeline.client.workflow.start(workflow, {
      taskQueue,
      workflowId: `${workflow}-${runId}`,
      args: [{ ...args, runId }],
    });
    try {
      const result = handle.result() as Promise<RunSummary>;
      if (timeoutSeconds === undefined) return await result;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), timeoutSeconds * 1000)));
      const first = await Promise.race([result, expired]).finally(() => clearTimeout(timer));
      if (first !== 'expired') return first;
      result.catch(() => undefined); // it rejects once terminated
      await handle.terminate(`bench: time limit of ${timeoutSeconds} s`);
      throw new PipelineTimeout(runId, timeoutSeconds);
    } catch (error) {
      if (error instanceof PipelineTimeout) throw error;
      const cause = error instanceof WorkflowFailedError ? (error.cause?.message ?? error.message) : (error as Error).message;
      throw new Error(`${workflow} ${runId} failed: ${cause}`);
    }
  });
  const ledger: Record<string, LedgerEntry> = {};
  for (const sourceId of sourceIds) ledger[sourceId] = await ledgerEntry(pool, runId, sourceId);
  return { runId, seconds, summary, ledger };
}

/**
 * A forced backfill of one source from an explicit file: a full first load of that register.
 * With `timeoutSeconds`, a run still going then is terminated and PipelineTimeout thrown.
 */
export async function runBackfill(pipeline: PipelineClient, pool: pg.Pool, taskQueue: string, sourceId: string, input: string, timeoutSeconds?: number): Promise<PipelineRun> {
  const run = await execute(pipeline, pool, taskQueue, 'backfill', sourceId.replace(/^no-/, ''), { sourceId, input, force: true }, [sourceId], timeoutSeconds);
  const entry = run.ledger[sourceId];
  if (run.summary.outcome !== 'succeeded' || entry.outcome !== 'published') {
    throw new Error(`backfill of ${sourceId} ended ${run.summary.outcome}/${entry.outcome}: ${entry.error ?? 'no error recorded'}`);
  }
  return run;
}

/**
 * A backfill of one source from an explicit file as a night runs it: not forced, so the
 * row-drop check applies and a file equal to the last one loaded is found unchanged.
 */
export async function runSourceNight(pipeline: PipelineClient, pool: pg.Pool, taskQueue: string, sourceId: string, input: string): Promise<PipelineRun> {
  const run = await execute(pipeline, pool, taskQueue, 'backfill', `${sourceId.replace(/^no-/, '')}-night`, { sourceId, input, force: false }, [sourceId]);
  const entry = run.ledger[sourceId];
  if (run.summary.outcome !== 'succeeded' || (entry.outcome !== 'published' && entry.outcome !== 'unchanged')) {
    throw new Error(`night of ${sourceId} ended ${run.summary.outcome}/${entry.outcome}: ${entry.error ?? 'no error recorded'}`);
  }
  return run;
}

/**
 * The nightly refresh over the worker's configured inputs (NORDPROP_INPUT_DIR), not forced.
 * Naming the sources skips the derived datasets unless `derive` asks for them, as the scheduled
 * nightly (which names none) computes them.
 */
export async function runNightly(pipeline: PipelineClient, pool: pg.Pool, taskQueue: string, sourceIds: string[], options: { derive?: boolean } = {}): Promise<PipelineRun> {
  const run = await execute(pipeline, pool, taskQueue, 'nightlyRefresh', 'nightly', { sources: sourceIds, force: false, ...(options.derive ? { derive: true } : {}) }, sourceIds);
  if (run.summary.outcome !== 'succeeded') throw new Error(`nightly refresh ended ${run.summary.outcome}: ${JSON.stringify(run.summary.sources)}`);
  if (run.summary.derived && run.summary.derived.outcome !== 'succeeded') throw new Error(`the refresh's derived datasets ended ${run.summary.derived.outcome}: ${JSON.stringify(run.summary.derived.sources)}`);
  return run;
}
