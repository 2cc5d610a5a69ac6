import { execFile } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';

const run = promisify(execFile);
let pipeline: TestPipeline;

/** The built CLI, from the folder `cwd`, with this file's database, server and task queue. */
async function nordprop(cwd: string, ...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(PROJECT_ROOT, 'bin/nordprop.js'), ...args], { cwd, env: { ...process.env } });
    return { code: 0, json: JSON.parse(stdout), stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, json: failed.stdout ? JSON.parse(failed.stdout) : undefined, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

it('backfill --input reads a file whose path holds spaces and non-ASCII letters, given as a relative path or as a file: URL', async () => {
  const cwd = path.join(pipeline.dataDir, 'in put');
  const file = path.join(cwd, 'Ålesund ø', 'adresser #1 100%.zip');
  await mkdir(path.dirname(file), { recursive: true });
  await copyFile(REAL_ADDRESS_ZIP, file);

  const relative = await nordprop(cwd, 'backfill', '--source', 'no-address', '--input', path.join('Ålesund ø', 'adresser #1 100%.zip'), '--wait', '--json');
  expect(relative.code, relative.stderr + JSON.stringify(relative.json)).toBe(0);
  expect(relative.json.sources[0]).toMatchObject({ sourceId: 'no-address', outcome: 'published', rowsRead: 47, inserted: 47 });
  const shown = await nordprop(cwd, 'runs', 'show', relative.json.runId, '--json');
  expect(shown.json.sources[0].input).toBe(file);
  // The workflow was given the file as a file: URL (what the Temporal UI shows as its input);
  // the worker decoded it back to the path the ledger records.
  const history = await pipeline.client.workflow.getHandle(relative.json.workflowId).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  expect(defaultPayloadConverter.fromPayload<{ input: string }>(started!).input).toBe(pathToFileURL(file).href);

  // A file: URL spells the same path percent-encoded.
  const url = pathToFileURL(file).href;
  expect(url).toContain('%20');
  const viaUrl = await nordprop(PROJECT_ROOT, 'backfill', '--source', 'no-address', '--input', url, '--force', '--wait', '--json');
  expect(viaUrl.code, viaUrl.stderr + JSON.stringify(viaUrl.json)).toBe(0);
  expect(viaUrl.json.sources[0]).toMatchObject({ sourceId: 'no-address', outcome: 'published', rowsRead: 47, inserted: 0, updated: 0, deleted: 0 });
});
