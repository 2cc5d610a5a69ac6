import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig, PROJECT_ROOT } from '../../lib/config.js';
import { createWorker } from '../../worker/pipeline-worker.js';
import { closePools } from '../../lib/db.js';
import { SEARCH_ATTRIBUTES } from '../../lib/temporal/search-attribute-keys.js';
import { createTestDatabase } from '../support/database.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { freePort } from '../../lib/net/free-port.js';

/**
 * `nordprop backfill --wait` while the Temporal server is down for a while: a dev server of this
 * file's own, on a SQLite file, is stopped after the CLI started its run and started again on the
 * same file and port; the CLI must wait it out and exit with the run's real outcome, or, past its
 * --reconnect-timeout, say the outcome is unknown. The worker starts only after the restart, so
 * no run can end before the outage (which outlasts the ≈20 s the Temporal SDK retries a lost call
 * by itself).
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});


/** `temporal server start-dev` on a SQLite file, serving once it answers; `stop` is SIGTERM. */
async function startServer(dbFile: string, port: number): Promise<{ stop(): Promise<void> }> {
  const binary = process.env.TEMPORAL_CLI || path.join(PROJECT_ROOT, '.tools/bin/temporal');
  const child = spawn(
    binary,
    [
      'server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFile, '--log-level', 'error',
      ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: '1s' });
      await connection.workflowService.describeNamespace({ namespace: 'default' }).finally(() => connection.close());
      break;
    } catch (error) {
      if (attempt > 240) throw error;
      await sleep(250);
    }
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  return { stop };
}

/** A CLI child process; `tty` runs it under script(1), so its stderr is a terminal and the progress bars show. */
function startCli(args: string[], env: NodeJS.ProcessEnv, tty = false) {
  const command = [process.execPath, path.join(PROJECT_ROOT, 'bin/nordprop.js'), ...args];
  const quoted = command.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  const child: ChildProcess = tty
    ? spawn('script', ['-q', '-e', '-c', `stty cols 160; exec ${quoted}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const cli = { stdout: '', stderr: '', code: null as number | null, exited: undefined as unknown as Promise<number | null> };
  child.stdout!.on('data', (chunk: Buffer) => (cli.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (cli.stderr += chunk.toString()));
  cli.exited = new Promise((resolve) => child.once('close', (code) => resolve((cli.code = code))));
  cleanups.push(async () => child.exitCode === null && child.kill('SIGKILL'));
  return cli;
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

it('backfill --wait waits out a Temporal server that is down for a while and exits with the run\'s real outcome', { timeout: 240_000 }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-outage-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const dbFile = path.join(dir, 'temporal.sqlite');
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  let server = await startServer(dbFile, port);
  const database = await createTestDatabase();
  cleanups.push(database.drop);
  // The CLIs and the worker (in this process) are configured through the environment.
  Object.assign(process.env, { DATABASE_URL: database.url, TEMPORAL_ADDRESS: address, NORDPROP_TASK_QUEUE: `nordprop-outage-${process.pid}`, NORDPROP_DATA_DIR: dir });
  const env = { ...process.env };

  // One CLI with --json, one on a terminal with its progress bars, each waiting for a backfill.
  const json = startCli(['backfill', '--source', 'no-address', '--input', REAL_ADDRESS_ZIP, '--wait', '--json'], env);
  const tty = startCli(['backfill', '--source', 'no-address', '--input', path.join(PROJECT_ROOT, 'test/fixtures/no/address/oslo-2-rows.csv'), '--wait'], env, true);
  // And one that waits for a derive run, giving up after one second of outage.
  const givesUp = startCli(['derive', '--dataset', 'tenants', '--country', 'NO', '--wait', '--json', '--reconnect-timeout', '1s'], env);
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  await until('the three runs to start', async () => {
    let started = 0;
    for await (const workflow of client.workflow.list({ query: `ExecutionStatus = 'Running'` })) started += ['backfill', 'deriveDatasets'].includes(workflow.type) ? 1 : 0;
    return started === 3;
  });
  await connection.close();

  await server.stop();
  // Down until the CLIs have noticed (the SDK's own retries take ≈20 s) or given up.
  await until('the CLIs to notice the outage', () => givesUp.code !== null && [json, tty].every((cli) => cli.code !== null || /Temporal server at \S+ is unreachable/.test(cli.stderr + cli.stdout)));
  server = await startServer(dbFile, port);

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const workerConnection = await NativeConnection.connect({ address });
  const worker = await createWorker({ config: loadConfig(), connection: workerConnection, workflowBundle: { codePath: inject('workflowBundlePath') } });
  const running = worker.run();
  cleanups.push(async () => {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await closePools();
  });

  await Promise.all([json.exited, tty.exited]);
  expect(givesUp.code, givesUp.stderr).toBe(1);
  expect(JSON.parse(givesUp.stdout)).toMatchObject({ outcome: 'unknown', error: expect.stringMatching(/^Temporal server at \S+ unreachable for .* gave up waiting \(--reconnect-timeout\); the run's outcome is unknown$/) });
  expect(json.code, json.stderr).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'backfill', outcome: 'succeeded', sources: [expect.objectContaining({ sourceId: 'no-address', outcome: 'published', rowsRead: 47, inserted: 47 })] });
  expect(json.stderr).toMatch(/Temporal server at 127\.0\.0\.1:\d+ is unreachable .*Retrying for up to 10 min 0 s/);
  expect(json.stderr).toMatch(/Temporal server at 127\.0\.0\.1:\d+ answers again after/);

  const screen = tty.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  expect(tty.code, screen).toBe(0);
  expect(screen).toMatch(/run r\d{8}-\d{6}-[0-9a-f]{6} \(backfill\): succeeded in/);
  expect(screen).toMatch(/no-address +published +2 +2 +0 +0 +2 /);
  expect(screen).toMatch(/Temporal server at 127\.0\.0\.1:\d+ is unreachable/);
});
