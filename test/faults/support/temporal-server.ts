import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { PROJECT_ROOT } from '../../../lib/config.js';
import { SEARCH_ATTRIBUTES } from '../../../lib/temporal/search-attribute-keys.js';
import { freePort, onProcessExit, waitFor } from './util.js';

/**
 * A Temporal dev server of the fault suite's own, persisted in a SQLite file (`--db-filename`)
 * so that it can be stopped mid-run and started again on the same file and port, with the
 * pipeline's search attributes (as lib/temporal/dev-server.ts starts it).
 */
export interface TemporalDevServer {
  address: string;
  /** SIGTERM (SIGKILL after 15 s) and wait for the process to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same database file and port, once it serves. */
  start(): Promise<void>;
  output(): string;
}

async function serving(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: '1s' });
  try {
    await connection.workflowService.describeNamespace({ namespace: 'default' });
    return true;
  } finally {
    await connection.close();
  }
}

export async function startTemporalDevServer(dir: string): Promise<TemporalDevServer> {
  const binary = process.env.TEMPORAL_CLI || path.join(PROJECT_ROOT, '.tools/bin/temporal');
  if (!existsSync(binary)) throw new Error(`Temporal CLI not found at ${binary}: \`npm test\` builds it (scripts/lib.sh ensure_temporal_cli)`);
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = [
    'server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error',
    '--db-filename', path.join(dir, 'temporal.sqlite'),
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  onProcessExit(() => child?.kill('SIGKILL'));

  const start = async () => {
    const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    await waitFor(`the Temporal dev server at ${address}`, async () => {
      if (proc.exitCode !== null) throw new Error(`temporal dev server exited with code ${proc.exitCode}: ${output}`);
      return serving(address).catch(() => false);
    }, 60_000, { intervalMs: 200 }).catch((error) => {
      proc.kill('SIGKILL');
      throw error;
    });
  };
  const stop = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    address,
    start,
    async stop() {
      await stop();
    },
    output: () => output,
  };
}
