import { randomBytes } from 'node:crypto';
import type { RunSummary } from '../../activities/types.js';
import { loadConfig } from '../../lib/config.js';
import { selectSources } from '../../sources/registry.js';
import { backfill, ingestWorkflowId, nightlyRefresh, type BackfillInput, type RefreshInput } from '../../workflows/refresh.js';
import { RUN_ID_KEY } from '../../lib/temporal/search-attribute-keys.js';
import { formatRunId } from '../../workflows/run-id.js';
import { printJson } from '../output.js';
import { createProgress } from '../progress.js';
import { reportRun } from '../run-summary.js';
import { connectForRun, waitForResult } from '../wait-for-run.js';

/**
 * A run to start, with its workflow's input (less the run id, chosen here): a refresh, or a
 * backfill, whose `input` is an http(s) URL or a local file's `file:` URL (lib/register-input.ts).
 */
export type RunRequest = { kind: 'refresh'; input: Omit<RefreshInput, 'runId'> } | { kind: 'backfill'; input: Omit<BackfillInput, 'runId'> };

/**
 * Starts a refresh or backfill workflow under a run id chosen here, so the CLI can follow its
 * children's heartbeats; with `wait`, shows progress and prints the run's summary.
 */
export async function startRun(options: {
  run: RunRequest;
  wait: boolean;
  /** While waiting: how long to keep retrying a Temporal server that does not answer. */
  reconnectTimeoutMs: number;
  json: boolean;
}): Promise<number> {
  const config = loadConfig();
  const runId = formatRunId(new Date(), randomBytes(3).toString('hex'));
  const { run } = options;
  const workflowId = `${run.kind}-${runId}`;
  const { client, connection } = await connectForRun(config);
  try {
    const common = { taskQueue: config.taskQueue, workflowId, typedSearchAttributes: [{ key: RUN_ID_KEY, value: runId }] };
    // Started by function, so the arguments are checked against the workflow's signature.
    const handle =
      run.kind === 'backfill'
        ? await client.workflow.start(backfill, { ...common, args: [{ ...run.input, runId }] })
        : await client.workflow.start(nightlyRefresh, { ...common, args: [{ ...run.input, runId }] });
    if (!options.wait) {
      if (options.json) printJson({ runId, workflowId, status: 'started' });
      else console.log(`started run ${runId} (workflow ${workflowId}); follow it with: nordprop runs show ${runId}`);
      return 0;
    }
    if (!options.json) console.error(`run ${runId} started; waiting (Ctrl-C stops waiting, not the run)`);
    const selected = run.kind === 'backfill' ? { sources: [run.input.sourceId] } : { country: run.input.country, sources: run.input.sources };
    const children = selectSources(selected).map((s) => ({ sourceId: s.id, workflowId: ingestWorkflowId(s.id, runId) }));
    const progress = options.json ? undefined : createProgress(client, children);
    const result = waitForResult<RunSummary>(handle, {
      connection,
      address: config.temporalAddress,
      reconnectTimeoutMs: options.reconnectTimeoutMs,
      say: (line) => (progress ? progress.log(line) : console.error(line)),
    });
    await progress?.follow(result);
    return await reportRun(result, { runId, workflowId, label: 'run', json: options.json, temporalUiUrl: config.temporalUiUrl });
  } finally {
    await connection.close();
  }
}
