import cliProgress from 'cli-progress';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { heartbeatDetails as readDetails, runningPhase as readPhase, type IngestDescription as Description } from '../store/ingest-progress.js';

const MB = 1024 * 1024;

export interface Progress {
  /** A line for the user, above the bars while they are shown (stderr otherwise). */
  log(line: string): void;
  /** Updates the bars until `until` settles, then leaves them as they are. */
  follow(until: Promise<unknown>): Promise<void>;
}

/**
 * One bar per source, fed by the heartbeats of its ingest workflow's running activity (bytes of
 * the file, rows so far). Only on a terminal; elsewhere `follow` just waits, or with `lines`
 * writes a line each time a source changes phase (`no-address: stage`, … `no-address:
 * completed`), for logs. A server that does not answer leaves the bars as they were until it
 * answers again: every poll has a short deadline and its failure is ignored.
 */
export function createProgress(client: Client, children: { sourceId: string; workflowId: string }[], options: { lines?: boolean } = {}): Progress {
  if (!process.stderr.isTTY || !children.length) {
    if (options.lines && children.length) return phaseLines(client, children);
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
        if (!details) {
          // Validate and publish beat without progress figures: name the phase only.
          const phase = readPhase(description);
          if (phase) bar.update({ phase });
          return;
        }
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

/** `describe` of a child with a short deadline: null when it has not started yet, undefined when the server does not answer. */
const describeChild = (client: Client, workflowId: string): Promise<Description | null | undefined> =>
  client.connection
    .withDeadline(Date.now() + 2000, () => client.workflow.getHandle(workflowId).describe())
    .catch((error) => (error instanceof WorkflowNotFoundError ? null : undefined));

/** Without a terminal: a line on stderr for each phase a source enters, polled every second. */
function phaseLines(client: Client, children: { sourceId: string; workflowId: string }[]): Progress {
  const last = new Map<string, string>();
  const poll = async (child: { sourceId: string; workflowId: string }) => {
    const description = await describeChild(client, child.workflowId);
    // Not started yet (waiting for a worker or for a source it depends on), or no answer: nothing new.
    if (!description) return;
    const state = description.status.name !== 'RUNNING' ? description.status.name.toLowerCase() : readPhase(description);
    if (!state || last.get(child.sourceId) === state) return;
    last.set(child.sourceId, state);
    console.error(`${child.sourceId}: ${state}`);
  };
  return {
    log: (line) => console.error(line),
    async follow(until) {
      let settled = false;
      until.finally(() => (settled = true)).catch(() => undefined);
      while (!settled) {
        await Promise.all(children.map(poll));
        await Promise.race([until.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000))]);
      }
      // How each source ended, even one that ended between two polls.
      await Promise.all(children.map(poll));
    },
  };
}
