import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import * as workflows from '../../../workflows/index.js';
import { historyFromJsonText } from './history-json.js';

/**
 * Today's workflow code replays the committed histories of real runs (record-histories.ts
 * recorded them): a change that would break the runs in flight when a worker is upgraded (an
 * activity added, removed or reordered, a timer more or less, a child started elsewhere) fails
 * here instead of in production. An intentional change goes behind `patched()`, or re-records
 * (README "Changing a workflow").
 */

const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));

interface Recorded {
  file: string;
  workflowId: string;
  history: History;
  workflowType: string;
  closedAs: 'completed' | 'failed' | 'not closed';
}

async function loadHistories(): Promise<Recorded[]> {
  const workflowIds: Record<string, string> = JSON.parse(await readFile(path.join(HISTORIES_DIR, 'workflow-ids.json'), 'utf8'));
  const files = (await readdir(HISTORIES_DIR)).filter((file) => file.endsWith('.json') && file !== 'workflow-ids.json').sort();
  return Promise.all(
    files.map(async (file) => {
      const history = historyFromJsonText(await readFile(path.join(HISTORIES_DIR, file), 'utf8'));
      const events = history.events ?? [];
      const last = events.at(-1);
      return {
        file,
        workflowId: workflowIds[file] ?? file,
        history,
        workflowType: events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '',
        closedAs: last?.workflowExecutionCompletedEventAttributes ? 'completed' : last?.workflowExecutionFailedEventAttributes ? 'failed' : 'not closed',
      };
    }),
  );
}

try {
  // Replay workers' lifecycle chatter hides the result; keep warnings and errors.
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Another file in this process installed the runtime already (test/support/pipeline.ts does the same).
}

const histories = await loadHistories();
const byType = (type: string) => histories.filter((h) => h.workflowType === type);

describe('committed workflow histories', () => {
  it('cover every workflow the worker registers, each to its end', () => {
    // A workflow added to workflows/index.ts without a recorded history fails here.
    for (const name of Object.keys(workflows)) expect(byType(name).map((h) => h.file), `no history of ${name}`).not.toEqual([]);
    for (const h of histories) expect([h.file, h.closedAs]).toEqual([h.file, expect.stringMatching(/^(completed|failed)$/)]);
  });

  it('hold a source run that published and one that failed on a bad file', () => {
    const ingest = byType('ingestSource');
    expect(ingest.filter((h) => h.closedAs === 'completed').length).toBeGreaterThan(0);
    expect(ingest.filter((h) => h.closedAs === 'failed').length).toBeGreaterThan(0);
  });

  it('replay on the current workflow code without a determinism error', async () => {
    const results = new Map<string, string | undefined>();
    // One replay worker for all, on the bundle the suite's workers run (test/global-setup.ts).
    const replayed = Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, replayName: 'committed-histories' },
      histories.map(({ workflowId, history }) => ({ workflowId, history })),
    );
    for await (const result of replayed) {
      const file = histories.find((h) => h.workflowId === result.workflowId)!.file;
      results.set(file, result.error ? `${result.error.name}: ${result.error.message}` : undefined);
    }
    // Strict: a history the replayer never reported is missing here, not equal to undefined.
    expect(Object.fromEntries(results)).toStrictEqual(Object.fromEntries(histories.map((h) => [h.file, undefined])));
  }, 600_000);
});
