import cliProgress from 'cli-progress';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ProgressDetails } from '../activities/types.js';

const MB = 1024 * 1024;

function readDetails(description: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['describe']>>): ProgressDetails | undefined {
  for (const activity of description.raw.pendingActivities ?? []) {
    const payload = activity.heartbeatDetails?.payloads?.[0];
    if (payload) return defaultPayloadConverter.fromPayload<ProgressDetails>(payload);
  }
  return undefined;
}

/**
 * Shows one bar per source, fed by the heartbeats of its ingest workflow's running activity
 * (bytes of the file, rows so far). Stops when `until` settles.
 */
export async function showProgress(client: Client, children: { sourceId: string; workflowId: string }[], until: Promise<unknown>): Promise<void> {
  if (!process.stderr.isTTY) return;
  const bars = new cliProgress.MultiBar(
    {
      format: ' {source} |{bar}| {phase} {mb}/{totalMb} MB | {rows} rows, {rejected} rejected',
      hideCursor: true,
      clearOnComplete: false,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  const width = Math.max(...children.map((c) => c.sourceId.length));
  const entries = children.map((child) => ({
    child,
    bar: bars.create(1, 0, { source: child.sourceId.padEnd(width), phase: 'waiting', mb: '0', totalMb: '?', rows: 0, rejected: 0 }),
  }));
  let settled = false;
  until.finally(() => (settled = true)).catch(() => undefined);
  while (!settled) {
    await Promise.all(
      entries.map(async ({ child, bar }) => {
        const description = await client.workflow.getHandle(child.workflowId).describe().catch(() => undefined);
        if (!description) return;
        if (description.status.name !== 'RUNNING') {
          bar.update(bar.getTotal(), { phase: description.status.name.toLowerCase() });
          return;
        }
        const details = readDetails(description);
        if (!details) return;
        const total = details.totalBytes ?? details.bytes;
        bar.setTotal(Math.max(total, 1));
        bar.update(details.bytes, {
          phase: details.phase,
          mb: (details.bytes / MB).toFixed(1),
          totalMb: details.totalBytes ? (details.totalBytes / MB).toFixed(1) : '?',
          rows: details.rows,
          rejected: details.rejected,
        });
      }),
    );
    await Promise.race([until.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))]);
  }
  bars.stop();
}
