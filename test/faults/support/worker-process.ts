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
  /** The worker's own task queue (lib/temporal/worker-task-queue.ts), from its start message. */
  workerTaskQueue(): string;
  /** Its process id (for /proc/PID/root: its view of a private data folder). */
  pid(): number;
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

export interface WorkerProcessOptions {
  /**
   * Run it as on a machine of its own: in a mount namespace of its own (`unshare -m`, needs
   * root) with a private tmpfs over its NORDPROP_DATA_DIR, so that it sees only the files it
   * downloaded itself (another worker's data folder is invisible to it, and its own to them).
   * A restart starts from an empty folder, as a replaced machine would.
   */
  privateDataDir?: boolean;
}

/** `sh` in the worker's new mount namespace: a tmpfs over the data folder, then the worker itself (exec: same PID). */
const PRIVATE_DATA_DIR_SCRIPT = 'mount -t tmpfs -o size=256m nordprop-worker-data "$NORDPROP_DATA_DIR" && exec "$@"';

export async function startWorkerProcess(env: Record<string, string>, options: WorkerProcessOptions = {}): Promise<WorkerProcess> {
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
    const worker = [process.execPath, '--max-semi-space-size=64', '--import', 'tsx', path.join(PROJECT_ROOT, 'test/faults/support/worker-main.ts')];
    const [command, ...args] = options.privateDataDir
      ? ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', PRIVATE_DATA_DIR_SCRIPT, 'sh', ...worker]
      : worker;
    const proc = spawn(command, args, {
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
  // The latest start's message: a restarted worker may poll another queue.
  const ownQueue = () => {
    const match = [...output.matchAll(/worker polling task queue \S+ and its own (\S+)/g)].at(-1);
    if (!match) throw new Error(`the worker named no queue of its own:\n${output.slice(-2000)}`);
    return match[1];
  };
  return {
    workerTaskQueue: ownQueue,
    pid: () => child!.pid!,
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
