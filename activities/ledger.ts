import type pg from 'pg';
import { ApplicationFailure } from '@temporalio/activity';
import { getPool } from '../lib/db.js';
import {
  closeRun,
  closeSourceRun,
  insertRun,
  insertSourceRun,
  lockSourceRun,
  plannedSourceCount,
  readSourceRunSummaries,
  readSourceRunSummary,
  recordPhaseDuration,
} from '../lib/run-ledger.js';
import { selectSources } from '../sources/registry.js';
import type { Country } from '../lib/domain/country.js';
import type { PlannedSource, RunKind, RunOutcome, RunSummary, SourceRunSummary } from './types.js';

/** The run ledger's activities: one row per run and per source in it, written as the run proceeds (lib/run-ledger.ts). */

export async function planRun(input: {
  runId: string;
  kind: RunKind;
  workflowId: string;
  country?: Country;
  sources?: string[];
  force: boolean;
}): Promise<PlannedSource[]> {
  const planned = selectSources({ country: input.country, sources: input.sources }).map((s) => ({ sourceId: s.id, country: s.country, dependsOn: s.dependsOn ?? [] }));
  if (!planned.length) throw new Error(`no source matches country ${input.country ?? 'any'} and ${input.sources?.join(', ') || 'all sources'}`);
  await insertRun(getPool(), { runId: input.runId, kind: input.kind, workflowId: input.workflowId, sources: planned.map((p) => p.sourceId), forced: input.force });
  return planned;
}

export async function startSourceRun(input: { runId: string; sourceId: string; country: Country }): Promise<void> {
  await insertSourceRun(getPool(), input);
}

export async function finishSourceRun(input: { runId: string; sourceId: string; outcome: 'unchanged' | 'failed'; error?: string }): Promise<void> {
  await closeSourceRun(getPool(), input);
}

export async function getSourceRunSummary(input: { runId: string; sourceId: string }): Promise<SourceRunSummary> {
  const summary = await readSourceRunSummary(getPool(), input.runId, input.sourceId);
  if (!summary) throw new Error(`no ledger entry for ${input.sourceId} in run ${input.runId}`);
  return summary;
}

/**
 * Closes the run: succeeded when no source failed, failed when all did, partial otherwise. A
 * planned source with no entry (its run was abandoned before it started) counts as failed.
 */
export async function finishRun(input: { runId: string }): Promise<RunSummary> {
  const pool = getPool();
  const summaries = await readSourceRunSummaries(pool, input.runId);
  const planned = await plannedSourceCount(pool, input.runId);
  const total = Math.max(planned, summaries.length);
  const failed = summaries.filter((s) => s.outcome === 'failed').length + (total - summaries.length);
  const outcome: RunOutcome = failed === 0 ? 'succeeded' : failed === total ? 'failed' : 'partial';
  const run = await closeRun(pool, input.runId, outcome);
  return { runId: input.runId, kind: run.kind, outcome, durationMs: run.durationMs, sources: summaries };
}

/** `db`: an activity that already holds connections passes one, so it never waits on the pool for another. */
export async function recordDuration(
  runId: string,
  sourceId: string,
  phase: string,
  ms: number,
  fields: Record<string, unknown> = {},
  db: Pick<pg.Pool, 'query'> = getPool(),
  /** Merged into the entry's `details` (e.g. a stage's `stageStepsMs`). */
  details?: Record<string, unknown>,
): Promise<void> {
  await recordPhaseDuration(db, { runId, sourceId, phase, ms, fields, ...(details ? { details } : {}) });
}

/** Thrown by a publish whose ledger entry its run had already closed: nothing was published. */
export const SOURCE_RUN_CLOSED = 'SourceRunClosed';

/**
 * The ledger entry a publish holds until it commits (lib/run-ledger.ts, lockSourceRun), refused
 * when the run closed it meanwhile: a cancelled run fails its open sources, and a workflow that
 * gave up on a publish attempt (a lost worker's attempt still running) fails its source. Such an
 * attempt, reaching its transaction late, would otherwise publish for a run the ledger calls failed.
 */
export async function holdSourceRunForPublish(client: pg.PoolClient, runId: string, sourceId: string): ReturnType<typeof lockSourceRun> {
  const entry = await lockSourceRun(client, runId, sourceId);
  if (entry && entry.outcome !== 'running' && entry.outcome !== 'published') {
    throw ApplicationFailure.create({
      type: SOURCE_RUN_CLOSED,
      nonRetryable: true,
      message: `${sourceId}: run ${runId} closed this source as ${entry.outcome} before its publish began; nothing was published`,
    });
  }
  return entry;
}
