import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../lib/config.js';
import { onProcessExit, waitFor } from './util.js';

/**
 * The pipeline worker as an OS process of its own (worker-main.ts: what `nordprop worker` runs,
 * from the TypeScript sources through tsx, with the young generation bin/nordprop.js gives it),
 * configured only through the environment, so that a test can SIGKILL it mid-activity and
 * start a new one. `env` must name NORDPROP_FAULT_WORKFLOW_BUNDLE.
 *
 * Like a process supervisor in production (a container's restart policy, systemd), it starts
 * the worker again when it dies on its own, and keeps a record of that: a worker that crashes
 * because, say, the database restarted is a finding of its own.
 */
export interface WorkerProcess {
  /** SIGKILL: no shutdown, no activity completion, its sessions cut when the process dies. */
  kill(): Promise<void>;
  /** Starts a new worker process with the same environment. */
  start(): Promise<void>;
  /** SIGTERM (graceful shutdown), SIGKILL after `graceMs`; not restarted. */
  stop(graceMs?: number): Promise<void>;
  /** Exits the test did not cause, each with the end of that process's output. */
  crashes(): string[];
  output(): string;
}

export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  let stopped = false;
  const crashes: string[] = [];
  const live = new Set<ChildProcess>();
  const expectedExits = new WeakSet<ChildProcess>();
  const removeExitHook = onProcessExit(() => {
    for (const proc of live) proc.kill('SIGKILL');
  });

  const start = async (): Promise<void> => {
    const proc = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', path.join(PROJECT_ROOT, 'test/faults/support/worker-main.ts')], {
      cwd: PROJECT_ROOT,
      // No metrics server: several workers run at once (and a developer's NORDPROP_METRICS_PORT would clash).
      env: { ...process.env, NORDPROP_ENV_FILE: '', NORDPROP_METRICS_PORT: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    live.add(proc);
    let own = '';
    exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => {
        live.delete(proc);
        resolve();
        if (expectedExits.has(proc) || stopped) return;
        crashes.push(`worker pid ${proc.pid} exited on its own (code ${code}, signal ${signal}): …${own.slice(-1500)}`);
        if (child === proc) start().catch((error) => crashes.push(`restarting the worker failed: ${(error as Error).message}`));
      }),
    );
    const keep = (chunk: Buffer) => {
      own += chunk.toString();
      output = (output + chunk.toString()).slice(-50_000);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    await waitFor('the worker to poll its task queue', () => {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`worker exited with code ${proc.exitCode}:\n${own}`);
      return own.includes('worker polling task queue');
    }, 120_000);
  };
  const terminate = async (signal: NodeJS.Signals, graceMs = 0) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    expectedExits.add(proc);
    proc.kill(signal);
    const timer = graceMs ? setTimeout(() => proc.kill('SIGKILL'), graceMs) : undefined;
    await exited;
    if (timer) clearTimeout(timer);
  };
  await start();
  return {
    kill: () => terminate('SIGKILL'),
    start,
    stop: async (graceMs = 10_000) => {
      stopped = true;
      await terminate('SIGTERM', graceMs);
      removeExitHook();
    },
    crashes: () => [...crashes],
    output: () => output,
  };
}
