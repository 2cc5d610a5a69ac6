import { randomBytes } from 'node:crypto';
import type { RunSummary } from '../../activities/types.js';
import { loadConfig } from '../../lib/config.js';
import { selectSources } from '../../sources/registry.js';
import { ingestWorkflowId } from '../../workflows/refresh.js';
import { RUN_ID_KEY } from '../../workflows/search-attributes.js';
import { formatRunId } from '../../workflows/run-id.js';
import { printJson } from '../output.js';
import { createProgress } from '../progress.js';
import { reportRun } from '../run-summary.js';
import { connectForRun, waitForResult } from '../wait-for-run.js';
import type { Country } from '../../sources/source-adapter.js';


/**
 * Starts a refresh or backfill workflow under a run id chosen here, so the CLI can follow its
 * children's heartbeats; with `wait`, shows progress and prints the run's summary.
 */
export async function startRun(options: {
  workflow: 'nightlyRefresh' | 'backfill';
  workflowIdPrefix: string;
  args: Record<string, unknown>;
  sources: { country?: Country; sources?: string[] };
  wait: boolean;
  /** While waiting: how long to keep retrying a Temporal server that does not answer. */
  reconnectTimeoutMs: number;
  json: boolean;
}): Promise<number> {
  const config = loadConfig();
  const runId = formatRunId(new Date(), randomBytes(3).toString('hex'));
  const workflowId = `${options.workflowIdPrefix}-${runId}`;
  const { client, connection } = await connectForRun(config);
  try {
    const handle = await client.workflow.start(options.workflow, {
      taskQueue: config.taskQueue,
      workflowId,
      args: [{ ...options.args, runId }],
      typedSearchAttributes: [{ key: RUN_ID_KEY, value: runId }],
    });
    if (!options.wait) {
      if (options.json) printJson({ runId, workflowId, status: 'started' });
      else console.log(`started run ${runId} (workflow ${workflowId}); follow it with: nordprop runs show ${runId}`);
      return 0;
    }
    if (!options.json) console.error(`run ${runId} started; waiting (Ctrl-C stops waiting, not the run)`);
    const children = selectSources(options.sources).map((s) => ({ sourceId: s.id, workflowId: ingestWorkflowId(s.id, runId) }));
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
