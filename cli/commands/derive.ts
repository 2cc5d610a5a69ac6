import { randomBytes } from 'node:crypto';
import type { RunSummary } from '../../activities/types.js';
import { loadConfig } from '../../lib/config.js';
import { connectClient } from '../../lib/temporal/connection.js';
import { selectDatasets } from '../../derive/registry.js';
import { deriveWorkflowId } from '../../workflows/derive.js';
import { RUN_ID_KEY } from '../../workflows/search-attributes.js';
import { formatRunId } from '../../workflows/run-id.js';
import type { Country } from '../../sources/source-adapter.js';
import { printJson } from '../output.js';
import { reportRun } from '../run-summary.js';

/**
 * `nordprop derive`: starts the deriveDatasets workflow alone (the nightly refresh runs it after
 * its sources) under a run id chosen here; with `wait`, prints the run's summary.
 */
export async function deriveCommand(options: { datasets?: string[]; country?: Country; asOf?: string; wait: boolean; json: boolean }): Promise<number> {
  if (options.asOf !== undefined && !isCalendarDate(options.asOf)) {
    console.error(`nordprop: --as-of "${options.asOf}" is not a date (YYYY-MM-DD)`);
    return 2;
  }
  const datasets = selectDatasets(options.datasets).map((d) => d.id); // fails on an unknown id before starting anything
  const config = loadConfig();
  const runId = formatRunId(new Date(), randomBytes(3).toString('hex'));
  const workflowId = deriveWorkflowId(runId);
  const { client, connection } = await connectClient(config);
  try {
    const handle = await client.workflow.start('deriveDatasets', {
      taskQueue: config.taskQueue,
      workflowId,
      args: [{ runId, datasets, countries: options.country ? [options.country] : undefined, asOf: options.asOf }],
      typedSearchAttributes: [{ key: RUN_ID_KEY, value: runId }],
    });
    if (!options.wait) {
      if (options.json) printJson({ runId, workflowId, status: 'started' });
      else console.log(`started derive run ${runId} (workflow ${workflowId}); follow it with: nordprop runs show ${runId}`);
      return 0;
    }
    if (!options.json) console.error(`derive run ${runId} started (${datasets.join(', ')}); waiting (Ctrl-C stops waiting, not the run)`);
    return await reportRun(handle.result() as Promise<RunSummary>, { runId, workflowId, label: 'derive run', json: options.json, temporalUiUrl: config.temporalUiUrl });
  } finally {
    await connection.close();
  }
}

function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}
