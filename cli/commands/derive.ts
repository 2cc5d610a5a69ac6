import { randomBytes } from 'node:crypto';
import type { RunSummary } from '../../activities/types.js';
import { loadConfig } from '../../lib/config.js';
import { selectDatasets } from '../../derive/registry.js';
import { deriveDatasets, deriveWorkflowId } from '../../workflows/derive.js';
import { RUN_ID_KEY } from '../../lib/temporal/search-attribute-keys.js';
import { formatRunId } from '../../workflows/run-id.js';
import type { Country } from '../../lib/domain/country.js';
import { printJson } from '../output.js';
import { reportRun } from '../run-summary.js';
import { connectForRun, waitForResult } from '../wait-for-run.js';

/**
 * `nordprop derive`: starts the deriveDatasets workflow alone (the nightly refresh runs it after
 * its sources) under a run id chosen here; with `wait`, prints the run's summary.
 */
export async function deriveCommand(options: {
  /** Known ids (cli/arguments.ts datasetId); none: all. */
  datasets?: string[];
  country?: Country;
  /** YYYY-MM-DD (cli/arguments.ts calendarDate). */
  asOf?: string;
  /** Datasets computed at once; the workflow's default when omitted. */
  concurrency?: number;
  wait: boolean;
  reconnectTimeoutMs: number;
  json: boolean;
}): Promise<number> {
  const datasets = selectDatasets(options.datasets).map((d) => d.id);
  const config = loadConfig();
  const runId = formatRunId(new Date(), randomBytes(3).toString('hex'));
  const workflowId = deriveWorkflowId(runId);
  const { client, connection } = await connectForRun(config);
  try {
    const handle = await client.workflow.start(deriveDatasets, {
      taskQueue: config.taskQueue,
      workflowId,
      args: [{ runId, datasets, countries: options.country ? [options.country] : undefined, asOf: options.asOf, concurrency: options.concurrency }],
      typedSearchAttributes: [{ key: RUN_ID_KEY, value: runId }],
    });
    if (!options.wait) {
      if (options.json) printJson({ runId, workflowId, status: 'started' });
      else console.log(`started derive run ${runId} (workflow ${workflowId}); follow it with: nordprop runs show ${runId}`);
      return 0;
    }
    if (!options.json) console.error(`derive run ${runId} started (${datasets.join(', ')}); waiting (Ctrl-C stops waiting, not the run)`);
    const result = waitForResult<RunSummary>(handle, {
      connection,
      address: config.temporalAddress,
      reconnectTimeoutMs: options.reconnectTimeoutMs,
      say: (line) => console.error(line),
    });
    return await reportRun(result, { runId, workflowId, label: 'derive run', json: options.json, temporalUiUrl: config.temporalUiUrl });
  } finally {
    await connection.close();
  }
}

