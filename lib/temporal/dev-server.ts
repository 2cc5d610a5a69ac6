import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { PROJECT_ROOT } from '../config.js';
import { freePort } from '../net/free-port.js';
import { SEARCH_ATTRIBUTES } from './search-attribute-keys.js';

/**
 * A Temporal dev server of a test run's or a benchmark's own: in memory, headless, on a free
 * port, with the pipeline's search attributes; stopped by the caller.
 */

export interface TemporalServer {
  address: string;
  pid: number;
  stop(): Promise<void>;
}


async function waitUntilServing(address: string, exited: () => number | null, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (exited() !== null) throw new Error(`temporal dev server exited with code ${exited()} during startup`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: '1s' });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`temporal dev server at ${address} not ready after ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * The dev server has one history shard, and a shard's transfer queue (which hands every new
 * workflow and activity task to matching) reads at most 20 times a second by default. Past the
 * first second's burst, every task then waited for the next 50 ms tick: a run of a source whose
 * file was unchanged (about 20 tasks) took 0.94 s instead of 0.34 s, and so did the fixed part
 * of every run. A cluster with hundreds of shards spreads that limit; one shard needs it raised.
 * scripts/lib.sh starts the demo's dev server with the same value.
 */
export const DISPATCH_WITHOUT_DELAY = ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=1000'];

/** `logFile`: where the server's output goes; without one, only its errors reach stderr. */
export async function startTemporalServer(logFile?: string): Promise<TemporalServer> {
  const binary = process.env.TEMPORAL_CLI || path.join(PROJECT_ROOT, '.tools/bin/temporal');
  if (!existsSync(binary)) throw new Error(`Temporal CLI not found at ${binary}: \`npm test\` and \`npm run bench\` build it (scripts/lib.sh ensure_temporal_cli)`);
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = [
    'server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error',
    ...DISPATCH_WITHOUT_DELAY,
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
  ];
  const log = logFile ? createWriteStream(logFile, { flags: 'a' }) : undefined;
  const child = spawn(binary, args, { stdio: ['ignore', log ? 'pipe' : 'ignore', log ? 'pipe' : 'inherit'] });
  if (log) {
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilServing(address, () => child.exitCode, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    address,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      log?.end();
    },
  };
}
