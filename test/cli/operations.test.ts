import { execFile, execFileSync, spawn } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, PROJECT_ROOT } from '../../lib/config.js';
import { createWorker } from '../../worker/pipeline-worker.js';
import { noAddress } from '../../sources/no/address/adapter.js';
import { PERMITS_FILE_NAME } from '../../sources/no/permits/adapter.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';

/**
 * What a data engineer sees the morning after (docs/operations.md), through the built CLI against
 * this file's database, dev-server task queue and worker: the alert a partial run posts to a real
 * HTTP receiver on 127.0.0.1, `alerts test`, a source's history, `runs show`, `rejects`,
 * `runs watch` of a run started elsewhere, and `--version`.
 */

const exec = promisify(execFile);
const CLI = path.join(PROJECT_ROOT, 'bin/nordprop.js');

interface Received {
  path: string;
  body: any;
}
const received: Received[] = [];
let receiver: http.Server;
let baseUrl: string;
let pipeline: TestPipeline;
let inputDir: string;

async function nordprop(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: JSON.parse(text) });
      if (request.url === '/archived') {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('channel_is_archived');
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  pipeline = await startPipeline({ NORDPROP_ALERT_WEBHOOK_URL: `${baseUrl}/hook` });
  // A refresh reads each source's file from here: the address register is there, the permits are not.
  inputDir = path.join(pipeline.dataDir, 'input');
  await exec('mkdir', ['-p', inputDir]);
  await copyFile(REAL_ADDRESS_ZIP, path.join(inputDir, noAddress.inputFileName));
  process.env.NORDPROP_INPUT_DIR = inputDir;
});
afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  await pipeline?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const alertsTo = (hookPath: string) => received.filter((r) => r.path === hookPath);

async function alertWorkflowExists(runId: string): Promise<boolean> {
  try {
    await pipeline.client.workflow.getHandle(`alert-${runId}`).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

const runs: Record<string, string> = {};

describe('the morning after', () => {
  it('--version prints the package version and the git commit', async () => {
    const { code, stdout } = await nordprop(['--version']);
    expect(code).toBe(0);
    const commit = execFileSync('git', ['-C', PROJECT_ROOT, 'rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const { version } = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    expect(stdout).toMatch(new RegExp(`^nordprop ${version.replaceAll('.', '\\.')} \\(commit ${commit}(\\+changes)?\\)\\n$`));
  });

  it('a run that succeeds sends no alert', async () => {
    const { code, stdout } = await nordprop(['backfill', '--source', 'no-address', '--input', REAL_ADDRESS_ZIP, '--wait', '--json']);
    expect(code).toBe(0);
    runs.published = JSON.parse(stdout).runId;
    // The run starts its alert workflow before it ends, if at all.
    expect(await alertWorkflowExists(runs.published)).toBe(false);
    expect(alertsTo('/hook')).toEqual([]);
  });

  it('a refresh with one failing source posts exactly one alert naming the source and its error', async () => {
    const { code, stdout } = await nordprop(['refresh', '--source', 'no-address', '--source', 'no-permits', '--wait', '--json']);
    expect(code).toBe(1);
    const summary = JSON.parse(stdout);
    runs.partial = summary.runId;
    expect(summary.outcome).toBe('partial');
    const error = `input file ${path.join(inputDir, PERMITS_FILE_NAME)} does not exist`;
    expect(summary.sources.find((s: any) => s.sourceId === 'no-permits').error).toBe(error);

    await until('the alert', () => (alertsTo('/hook').length ? true : undefined));
    await pipeline.client.workflow.getHandle(`alert-${runs.partial}`).result();
    const alerts = alertsTo('/hook');
    expect(alerts).toHaveLength(1);
    const alert = alerts[0].body;
    expect(alert).toMatchObject({
      runId: runs.partial,
      kind: 'refresh',
      outcome: 'partial',
      sources: { total: 2, failed: 1 },
      failedSources: [{ sourceId: 'no-permits', error }],
      guardTrips: [],
      show: `nordprop runs show ${runs.partial}`,
    });
    expect(alert.text).toBe(
      `nordprop refresh run ${runs.partial} ended partial: 1 of 2 sources failed — no-permits: ${error}. ` +
        `Live data of the failed sources is unchanged. Look with: \`nordprop runs show ${runs.partial}\` ` +
        `(Temporal UI: ${loadConfig().temporalUiUrl}/namespaces/default/workflows?query=NordpropRunId%3D%22${runs.partial}%22).`,
    );

    const shown = await nordprop(['runs', 'show', runs.partial]);
    expect(shown.stdout).toContain('  alert: sent\n');
  });

  it('a tripped validation guard is named in the alert, and its rejected rows are listed by `rejects`', async () => {
    const csv = path.join(pipeline.dataDir, 'oslo-with-a-broken-row.csv');
    const good = await readFile(path.join(PROJECT_ROOT, 'test/fixtures/no/address/oslo-2-rows.csv'), 'utf8');
    await writeFile(csv, `${good.trimEnd()}\n300000003;0301;OSLO;broken\n`);
    const { code, stdout } = await nordprop(['backfill', '--source', 'no-address', '--input', csv, '--wait', '--json']);
    expect(code).toBe(1);
    runs.guard = JSON.parse(stdout).runId;

    await until('the guard alert', () => alertsTo('/hook').find((a) => a.body.runId === runs.guard));
    const alert = alertsTo('/hook').find((a) => a.body.runId === runs.guard)!.body;
    expect(alert).toMatchObject({ kind: 'backfill', outcome: 'failed', guardTrips: [{ sourceId: 'no-address', guard: 'reject-rate' }] });
    expect(alert.guardTrips[0].error).toMatch(/^1 of 3 rows rejected \(33\.33%\), above the 1\.00% ceiling/);
    expect(alert.text).toContain('no-address (validation guard: reject rate): 1 of 3 rows rejected (33.33%)');

    const listed = await nordprop(['rejects', '--run', runs.guard]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')).toEqual([
      expect.stringMatching(/^source\s+position\s+disposition\s+reason\s+raw$/),
      expect.stringMatching(/^no-address\s+4\s+rejected\s+row has 4 columns, the header has 46\s+300000003;0301;OSLO;broken$/),
      '',
    ]);
    const found = await nordprop(['rejects', '--source', 'no-address', '--reason', 'HEADER HAS', '--json']);
    expect(JSON.parse(found.stdout)).toEqual({
      items: [expect.objectContaining({ runId: runs.guard, sourceId: 'no-address', position: 4, disposition: 'rejected', raw: '300000003;0301;OSLO;broken' })],
      total: 1,
    });
    expect((await nordprop(['rejects', '--reason', 'no such reason'])).stdout).toBe('(none)\n');
  });

  it('alerts test posts a test message, and exits 1 with the reason when the POST fails', async () => {
    const sent = await nordprop(['alerts', 'test']);
    expect(sent).toMatchObject({ code: 0, stdout: `test alert sent to ${baseUrl}/…; look for it in the channel\n` });
    expect(alertsTo('/hook').filter((a) => a.body.test)).toEqual([{ path: '/hook', body: expect.objectContaining({ test: true, text: expect.stringMatching(/^nordprop alert test from /) }) }]);

    const failed = await nordprop(['alerts', 'test'], { NORDPROP_ALERT_WEBHOOK_URL: `${baseUrl}/archived` });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(`alerts test: POST to ${baseUrl}/… answered HTTP 500: channel_is_archived\n`);
    const unset = await nordprop(['alerts', 'test'], { NORDPROP_ALERT_WEBHOOK_URL: '' });
    expect(unset).toMatchObject({ code: 1, stderr: 'alerts test: NORDPROP_ALERT_WEBHOOK_URL is not set: runs send no alerts (docs/operations.md)\n' });
  });

  it('runs --source lists the source\'s runs newest first, with counts and phase durations, filtered by outcome and day', async () => {
    const history = await nordprop(['runs', '--source', 'no-address']);
    const lines = history.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^run\s+kind\s+started\s+outcome\s+read\s+staged\s+rejected\s+repaired\s+inserted\s+updated\s+deleted\s+download\s+stage\s+validate\s+publish\s+total\s+error$/);
    expect(lines.slice(1, 4).map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      [runs.guard, 'backfill'],
      [runs.partial, 'refresh'],
      [runs.published, 'backfill'],
    ]);
    const time = String.raw`(\d+ ms|[\d.]+ s)`;
    // download, stage, validate, publish, total
    expect(lines[3]).toMatch(new RegExp(String.raw`  published\s+47\s+47\s+0\s+0\s+47\s+0\s+0(\s+${time}){5}$`));
    expect(lines[1]).toMatch(/ failed\s+3\s+2\s+1\s+.*1 of 3 rows rejected/);

    const failed = JSON.parse((await nordprop(['runs', '--source', 'no-address', '--outcome', 'failed', '--json'])).stdout);
    expect(failed.items.map((item: any) => [item.runId, item.outcome])).toEqual([[runs.guard, 'failed']]);
    const ofPartialRuns = JSON.parse((await nordprop(['runs', '--source', 'no-address', '--outcome', 'partial', '--json'])).stdout);
    expect(ofPartialRuns.items.map((item: any) => [item.runId, item.outcome, item.runOutcome])).toEqual([[runs.partial, 'unchanged', 'partial']]);
    const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE');
    expect((await nordprop(['runs', '--source', 'no-address', '--since', tomorrow])).stdout).toBe('(none)\n');
  });

  it('refuses a source outcome without --source, an impossible day and a malformed run id, before it starts', async () => {
    const cases: [string[], string][] = [
      [['runs', '--outcome', 'published'], "error: --outcome published: a source's outcome, only with --source (a run's are succeeded, partial, failed, running)"],
      [['runs', '--source', 'no-address', '--since', '2026-13-01'], "error: option '--since <date>' argument '2026-13-01' is invalid. expected a calendar date as YYYY-MM-DD"],
      [['rejects', '--run', 'r1;drop'], "error: option '--run <id>' argument 'r1;drop' is invalid. expected a run id such as r20251126-020000-1a2b3c (see: nordprop runs)"],
    ];
    for (const [args, message] of cases) {
      const result = await nordprop(args);
      expect([result.code, result.stderr.split('\n')[0]]).toEqual([2, message]);
    }
  });

  it('runs show lists the phases in order, the time waiting for a worker and the changes per table', async () => {
    const { code, stdout } = await nordprop(['runs', 'show', runs.published]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\n {2}waited for a worker: [\d.]+ (ms|s) in all \(\d+ tasks\) — from the Temporal history: scheduled → started/);
    expect(stdout).toContain('  alert: none (the run succeeded)\n');
    expect(stdout).toMatch(/\n {2}phases: download [\d.]+ m?s → stage [\d.]+ m?s → validate [\d.]+ m?s → publish [\d.]+ m?s\n/);
    expect(stdout).toContain('\n  tables: address 47 inserted, 0 updated, 0 deleted\n');
  });

  it('runs watch follows a run started elsewhere that waits for a worker, and exits with its outcome', async () => {
    // A task queue no worker polls yet: the run waits until one starts, three seconds later.
    const taskQueue = `${pipeline.taskQueue}-later`;
    const started = await nordprop(['backfill', '--source', 'no-address', '--input', path.join(PROJECT_ROOT, 'test/fixtures/no/address/oslo-2-rows.csv')], { NORDPROP_TASK_QUEUE: taskQueue });
    const runId = /^started run (\S+) /.exec(started.stdout)![1];
    const watch = spawn(process.execPath, [CLI, 'runs', 'watch', runId], { env: process.env });
    let stdout = '';
    let stderr = '';
    watch.stdout.on('data', (chunk) => (stdout += chunk));
    watch.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => watch.once('exit', resolve));
    await until('watch to say the run waits', () => (stderr.includes('has not started on a worker yet') ? true : undefined));
    await sleep(3000);
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createWorker({ config: { ...loadConfig(), taskQueue }, connection, workflowBundle: { codePath: inject('workflowBundlePath') } });
    const running = worker.run();
    try {
      expect(await exited, stderr).toBe(0);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
    expect(stderr).toContain(`run ${runId} (workflow backfill-${runId}) has not started on a worker yet; waiting for one\n`);
    expect(stderr).toContain(`watching run ${runId} (backfill, workflow backfill-${runId})`);
    expect(stderr).toMatch(/\nno-address: completed\n/);
    expect(stdout).toMatch(new RegExp(`^run ${runId} \\(backfill\\): succeeded in `));

    const shown = JSON.parse((await nordprop(['runs', 'show', runId, '--json'])).stdout);
    expect(shown.workerWait).toMatchObject({ known: true, totalMs: expect.any(Number) });
    expect(shown.workerWait.totalMs).toBeGreaterThanOrEqual(2500);
    expect(shown.sources[0]).toMatchObject({ sourceId: 'no-address', outcome: 'published', inserted: 2, workerWaitMs: expect.any(Number) });

    // A run that has ended: its summary and exit code at once.
    const ended = await nordprop(['runs', 'watch', runs.guard]);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain(`run ${runs.guard} has already ended`);
    expect(ended.stdout).toMatch(new RegExp(`^run ${runs.guard} \\(backfill\\): failed in `));
  });
});
