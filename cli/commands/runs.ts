import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { getPool } from '../../lib/db.js';
import { loadConfig, type Config } from '../../lib/config.js';
import { getRun, listRejects, listRuns as readRuns, PHASES, readRunSummary, runSources, sourceHistory as readSourceHistory } from '../../lib/run-ledger.js';
import type { RunSummary } from '../../activities/types.js';
import { ingestWorkflowId } from '../../workflows/refresh.js';
import { alertWorkflowId } from '../../workflows/alert.js';
import { deriveWorkflowId } from '../../workflows/derive.js';
import { describeError } from '../../lib/describe-error.js';
import { SOURCE_OUTCOMES } from '../arguments.js';
import { formatDuration, printJson, printTable } from '../output.js';
import { createProgress, type Progress } from '../progress.js';
import { reportRun } from '../run-summary.js';
import { connectForRun, waitForResult } from '../wait-for-run.js';
import { WORKER_WAIT_METHOD, workerWait, type WorkerWait } from '../worker-wait.js';

/** 00:00 of the day, in the time zone of the machine running the command. */
const startOfDay = (date: string) => new Date(`${date}T00:00:00`);

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export interface ListRunsOptions {
  limit: number;
  json: boolean;
  /** YYYY-MM-DD: runs started on that day or later. */
  since?: string;
  /** Any of these (cli/arguments.ts outcome). */
  outcomes?: string[];
  /** One source's history instead of whole runs. */
  source?: string;
}

export async function listRuns(options: ListRunsOptions): Promise<number> {
  if (options.source) return sourceHistory({ ...options, source: options.source });
  const runs = await readRuns(getPool(), { limit: options.limit, since: options.since ? startOfDay(options.since) : undefined, outcomes: options.outcomes });
  if (options.json) printJson({ items: runs });
  else printTable(runs.map((r) => ({ run: r.runId, kind: r.kind, outcome: r.outcome, started: r.startedAt.toISOString(), duration: formatDuration(r.durationMs), read: r.rowsRead, rejected: r.rowsRejected, changed: r.rowsChanged })));
  return 0;
}

/**
 * `runs --source ID`: the source's runs, newest first, one line each. `--outcome` published,
 * unchanged, failed and running are the source's outcome in the run; succeeded and partial the
 * run's. Several outcomes: any of them.
 */
async function sourceHistory(options: ListRunsOptions & { source: string }): Promise<number> {
  const own = (options.outcomes ?? []).filter((o) => (SOURCE_OUTCOMES as readonly string[]).includes(o));
  const ofRun = (options.outcomes ?? []).filter((o) => !own.includes(o));
  const items = await readSourceHistory(getPool(), {
    sourceId: options.source,
    limit: options.limit,
    since: options.since ? startOfDay(options.since) : undefined,
    ...(options.outcomes ? { sourceOutcomes: own, runOutcomes: ofRun } : {}),
  });
  if (options.json) {
    printJson({ sourceId: options.source, items });
    return 0;
  }
  const phases = PHASES.filter((phase) => items.some((item) => phase in item.durationsMs));
  printTable(
    items.map((item) => ({
      run: item.runId,
      kind: item.kind,
      started: item.startedAt.toISOString().slice(0, 19).replace('T', ' '),
      outcome: item.outcome,
      read: item.rowsRead,
      staged: item.rowsStaged,
      rejected: item.rowsRejected,
      repaired: item.rowsRepaired,
      inserted: item.inserted,
      updated: item.updated,
      deleted: item.deleted,
      ...Object.fromEntries(phases.map((phase) => [phase, phase in item.durationsMs ? formatDuration(item.durationsMs[phase]) : ''])),
      total: formatDuration(item.durationMs),
      error: item.error ? clip(item.error, 90) : '',
    })),
  );
  if (items.length) console.log(`(${items.length} run${items.length === 1 ? '' : 's'} of ${options.source}, newest first, times UTC; one in full: nordprop runs show RUN_ID)`);
  return 0;
}

/** What became of the run's alert (workflows/alert.ts), as far as Temporal still knows. */
async function alertState(client: Client, runId: string, outcome: string): Promise<{ state: string; detail?: string }> {
  if (outcome === 'running') return { state: 'none yet', detail: 'the run is still going' };
  if (outcome === 'succeeded') return { state: 'none', detail: 'the run succeeded' };
  const handle = client.workflow.getHandle(alertWorkflowId(runId));
  try {
    const description = await client.connection.withDeadline(Date.now() + 5000, () => handle.describe());
    switch (description.status.name) {
      case 'COMPLETED': {
        const result = (await handle.result()) as { sent: boolean };
        return result.sent ? { state: 'sent' } : { state: 'not sent', detail: 'NORDPROP_ALERT_WEBHOOK_URL is not set on the worker' };
      }
      case 'RUNNING': {
        const pending = description.raw.pendingActivities?.[0];
        const failure = pending?.lastFailure?.message;
        return { state: 'retrying', detail: failure ? `attempt ${pending?.attempt ?? 1}: ${failure}` : 'sending' };
      }
      default: {
        const reason = await handle.result().then(
          () => undefined,
          (error) => (error instanceof WorkflowFailedError ? describeError(error) : (error as Error).message),
        );
        return { state: 'not delivered', detail: reason ?? description.status.name.toLowerCase() };
      }
    }
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { state: 'unknown', detail: 'Temporal holds no alert workflow for this run (older than the retention period, or from before alerts)' };
    return { state: 'unknown', detail: `Temporal did not answer (${(error as Error).message.split('\n')[0]})` };
  }
}

/** A client for reading what Temporal knows of a run, or the reason there is none. */
async function readOnlyClient(config: Config): Promise<{ client?: Client; close(): Promise<void>; reason?: string }> {
  try {
    const connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: '3s' });
    return { client: new Client({ connection, namespace: config.temporalNamespace }), close: () => connection.close() };
  } catch (error) {
    return { close: async () => undefined, reason: `Temporal at ${config.temporalAddress} did not answer (${(error as Error).message.split('\n')[0]})` };
  }
}

export async function showRun(runId: string, options: { json: boolean; rejects: number }): Promise<number> {
  const pool = getPool();
  const r = await getRun(pool, runId);
  if (!r) {
    console.error(`no run ${runId}; list runs with: nordprop runs`);
    return 1;
  }
  const sources = await runSources(pool, runId);
  const rejects = await listRejects(pool, { runId, limit: options.rejects });
  const config = loadConfig();
  const temporal = await readOnlyClient(config);
  let wait: WorkerWait;
  let alert: { state: string; detail?: string };
  try {
    [wait, alert] = temporal.client
      ? await Promise.all([
          workerWait(temporal.client, { runId, kind: r.kind, workflowId: r.workflowId, sources: r.sources }),
          alertState(temporal.client, runId, r.outcome),
        ])
      : [{ known: false, method: WORKER_WAIT_METHOD, reason: temporal.reason! }, { state: 'unknown', detail: temporal.reason }];
  } finally {
    await temporal.close();
  }
  const detail = {
    runId, kind: r.kind, outcome: r.outcome, forced: r.forced, workflowId: r.workflowId, startedAt: r.startedAt, finishedAt: r.finishedAt,
    durationMs: r.durationMs,
    workerWait: wait,
    alert,
    sources: sources.map(({ input, inputSha256, durationsMs, details, inputBytes: _bytes, startedAt: _started, finishedAt: _finished, tables: _tables, ...summary }) => ({
      ...summary,
      input,
      inputSha256,
      durationsMs,
      ...(wait.known && summary.sourceId in wait.sources ? { workerWaitMs: wait.sources[summary.sourceId] } : {}),
      details,
    })),
    rejects: rejects.map((row) => ({ sourceId: row.sourceId, position: row.position, disposition: row.disposition, reason: row.reason, raw: row.raw === null ? null : row.raw.slice(0, 160) })),
  };
  if (options.json) {
    printJson(detail);
    return 0;
  }
  console.log(`run ${runId} (${detail.kind}${detail.forced ? ', forced' : ''}): ${detail.outcome}, workflow ${detail.workflowId}`);
  console.log(`  started ${detail.startedAt.toISOString()}, ${detail.finishedAt ? `finished ${detail.finishedAt.toISOString()}, took` : 'running for'} ${formatDuration(detail.durationMs)}`);
  console.log(
    wait.known
      ? `  waited for a worker: ${formatDuration(wait.totalMs)} in all (${wait.tasks} tasks${wait.retried ? `; ${wait.retried} retried activities not counted` : ''}) — from the ${wait.method}`
      : `  waited for a worker: unknown (${wait.reason})`,
  );
  console.log(`  alert: ${alert.state}${alert.detail ? ` (${alert.detail})` : ''}`);
  printTable(
    detail.sources.map((s) => ({
      source: s.sourceId, outcome: s.outcome, read: s.rowsRead, unchanged: s.rowsUnchanged ?? '', staged: s.rowsStaged, rejected: s.rowsRejected, repaired: s.rowsRepaired,
      inserted: s.inserted, updated: s.updated, deleted: s.deleted, duration: formatDuration(s.durationMs),
      ...(wait.known ? { queued: 'workerWaitMs' in s && s.workerWaitMs !== undefined ? formatDuration(s.workerWaitMs) : '' } : {}),
    })),
  );
  for (const s of detail.sources) {
    console.log(`\n${s.sourceId}${s.input ? `: ${s.input}` : ''}${s.inputSha256 ? ` (sha256 ${s.inputSha256.slice(0, 12)}…)` : ''}`);
    const phases = Object.entries(s.durationsMs as Record<string, number>);
    console.log(`  phases: ${phases.length ? phases.map(([phase, ms]) => `${phase} ${formatDuration(ms)}`).join(' → ') : 'none recorded'}`);
    const tables = Object.entries((s.details?.tables ?? {}) as Record<string, { inserted: number; updated: number; deleted: number }>);
    if (tables.length) console.log(`  tables: ${tables.map(([table, c]) => `${table} ${c.inserted} inserted, ${c.updated} updated, ${c.deleted} deleted`).join('; ')}`);
    if (s.error) console.log(`  error: ${s.error}`);
  }
  if (detail.rejects.length) {
    console.log(`\nrejected and repaired rows (first ${options.rejects}; all of them: nordprop rejects --run ${runId}):`);
    printTable(detail.rejects.map((x) => ({ source: x.sourceId, position: x.position, disposition: x.disposition, reason: x.reason })));
  }
  return 0;
}

interface LedgerRun {
  kind: string;
  outcome: string;
  workflowId: string | null;
  sources: string[];
}

async function ledgerRun(runId: string): Promise<LedgerRun | undefined> {
  const run = await getRun(getPool(), runId);
  return run && { kind: run.kind, outcome: run.outcome, workflowId: run.workflowId, sources: run.sources };
}

/** The run as the ledger closed it: what `--wait` would have printed, without the derive run a nightly starts. */
async function ledgerSummary(runId: string): Promise<RunSummary> {
  const summary = await readRunSummary(getPool(), runId);
  if (!summary) throw new Error(`no run ${runId} in the ledger`);
  return summary;
}

const RUN_WORKFLOW_TYPES = ['nightlyRefresh', 'backfill', 'deriveDatasets'];

/**
 * A run the ledger does not have yet (no worker has started its workflow): its workflow, by the
 * ids the CLI gives (`backfill-RUN_ID`, …), else by the NordpropRunId it sets when starting one.
 */
async function findRunWorkflow(client: Client, runId: string): Promise<string | undefined> {
  for (const workflowId of [`refresh-${runId}`, `backfill-${runId}`, deriveWorkflowId(runId)]) {
    const found = await client.workflow.getHandle(workflowId).describe().then(
      (description) => RUN_WORKFLOW_TYPES.includes(description.type),
      (error) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
    if (found) return workflowId;
  }
  try {
    for await (const workflow of client.workflow.list({ query: `NordpropRunId = "${runId}"` })) {
      if (RUN_WORKFLOW_TYPES.includes(workflow.type)) return workflow.workflowId;
    }
  } catch {
    // No such search attribute (setup not run): no run either.
  }
  return undefined;
}

/**
 * `runs watch RUN_ID`: follows a run started elsewhere (by the schedule, or by another shell):
 * progress of its sources' ingest workflows as `--wait` shows it (bars on a terminal, a line per
 * phase otherwise), then its summary; the exit code is the run's, as with `--wait`.
 */
export async function watchRun(runId: string, options: { json: boolean; reconnectTimeoutMs: number }): Promise<number> {
  const config = loadConfig();
  let run = await ledgerRun(runId);
  const label = 'run';
  if (run && run.outcome !== 'running') {
    if (!options.json) console.error(`run ${runId} has already ended`);
    return reportRun(ledgerSummary(runId), { runId, workflowId: run.workflowId ?? '', label, json: options.json, temporalUiUrl: config.temporalUiUrl });
  }
  const { client, connection } = await connectForRun(config);
  try {
    const workflowId = run?.workflowId ?? (await findRunWorkflow(client, runId));
    if (!workflowId) {
      console.error(`no run ${runId}; list runs with: nordprop runs`);
      return 1;
    }
    let progress: Progress | undefined;
    const result = waitForResult<RunSummary>(client.workflow.getHandle(workflowId), {
      connection,
      address: config.temporalAddress,
      reconnectTimeoutMs: options.reconnectTimeoutMs,
      say: (line) => (progress ? progress.log(line) : console.error(line)),
    });
    let settled = false;
    result.finally(() => (settled = true)).catch(() => undefined);
    if (!run) {
      // Started, but no worker has taken it yet: the ledger names its sources once one does.
      if (!options.json) console.error(`run ${runId} (workflow ${workflowId}) has not started on a worker yet; waiting for one`);
      while (!run && !settled) {
        await Promise.race([sleep(1000), result.catch(() => undefined)]);
        run = await ledgerRun(runId);
      }
    }
    if (!options.json) console.error(`watching run ${runId} (${run?.kind ?? 'run'}, workflow ${workflowId}); Ctrl-C stops watching, not the run`);
    const children = run && run.kind !== 'derive' ? run.sources.map((sourceId) => ({ sourceId, workflowId: ingestWorkflowId(sourceId, runId) })) : [];
    progress = options.json ? undefined : createProgress(client, children, { lines: true });
    await progress?.follow(result);
    return await reportRun(result, { runId, workflowId, label, json: options.json, temporalUiUrl: config.temporalUiUrl });
  } finally {
    await connection.close();
  }
}
