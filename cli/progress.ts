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

export interface Progress {
  /** A line for the user, above the bars while they are shown (stderr otherwise). */
  log(line: string): void;
  /** Updates the bars until `until` settles, then leaves them as they are. */
  follow(until: Promise<unknown>): Promise<void>;
}

/**
 * One bar per source, fed by the heartbeats of its ingest workflow's running activity (bytes of
 * the file, rows so far). Only on a terminal; elsewhere `follow` just waits. A server that does
 * not answer leaves the bars as they were until it answers again: every poll has a short
 * deadline and its failure is ignored.
 */
export function createProgress(client: Client, children: { sourceId: string; workflowId: string }[]): Progress {
  if (!process.stderr.isTTY || !children.length) {
    return {
      log: (line) => console.error(line),
      follow: (until) => until.then(() => undefined, () => undefined),
    };
  }
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
  let stopped = false;
  const poll = ({ child, bar }: (typeof entries)[number]) =>
    client.connection
      .withDeadline(Date.now() + 2000, () => client.workflow.getHandle(child.workflowId).describe())
      .then((description) => {
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
      })
      // Not started yet, or the server does not answer: keep the bar as it is.
      .catch(() => undefined);
  return {
    log: (line) => (stopped ? console.error(line) : bars.log(`${line}\n`)),
    async follow(until) {
      let settled = false;
      until.finally(() => (settled = true)).catch(() => undefined);
      try {
        while (!settled) {
          await Promise.all(entries.map(poll));
          await Promise.race([until.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))]);
        }
      } finally {
        stopped = true;
        bars.stop();
      }
    },
  };
}
