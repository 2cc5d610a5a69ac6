import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/config.js';

/**
 * The real pipeline worker, `node bin/nordprop.js worker`, as a child process configured only
 * through its environment (as in production). Its peak resident memory is the kernel's
 * high-water mark, VmHWM in /proc/<pid>/status, so one worker process per measured run gives
 * one peak per run.
 */

export interface WorkerEnv {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  dataDir: string;
  inputDir: string;
}

export interface MemoryPeak {
  /** VmHWM once the worker was ready (after bundling the workflow code), before any run. */
  readyBytes: number;
  /** VmHWM after the run: the peak of the whole process life. */
  peakBytes: number;
}

export interface WorkerProcess {
  pid: number;
  /** VmHWM once the worker logged that it polls. */
  readyHwmBytes: number;
  /** Reads VmHWM now; call before stop(). */
  memoryPeak(): Promise<MemoryPeak>;
  stop(): Promise<void>;
}

const READY = /worker polling task queue/;

/** The parent's environment without any setting that could reconfigure the worker behind our back. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(NORDPROP_|TEMPORAL_|DATABASE_URL$|PG[A-Z]+$)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

export async function readStatusKb(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

function waitForReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => finish(new Error(`worker did not log "worker polling" within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      if (READY.test(seen)) finish();
    };
    const onExit = (code: number | null) => finish(new Error(`worker exited with code ${code} before it was ready; see the worker log`));
    function finish(error?: Error) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startWorker(settings: WorkerEnv, logFile: string): Promise<WorkerProcess> {
  const env: NodeJS.ProcessEnv = {
    ...cleanEnvironment(),
    DATABASE_URL: settings.databaseUrl,
    TEMPORAL_ADDRESS: settings.temporalAddress,
    NORDPROP_TASK_QUEUE: settings.taskQueue,
    NORDPROP_DATA_DIR: settings.dataDir,
    NORDPROP_INPUT_DIR: settings.inputDir,
    NORDPROP_ENV_FILE: '', // ignore the machine's .env: the benchmark's settings only
  };
  const log = createWriteStream(logFile, { flags: 'a' });
  log.write(`=== ${new Date().toISOString()} worker start\n`);
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin/nordprop.js'), 'worker'], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  exited.then(() => log.end());
  try {
    await waitForReady(child, 180_000);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
  const pid = child.pid!;
  const readyHwmBytes = (await readStatusKb(pid, 'VmHWM')) * 1024;
  return {
    pid,
    readyHwmBytes,
    async memoryPeak() {
      return { readyBytes: readyHwmBytes, peakBytes: (await readStatusKb(pid, 'VmHWM')) * 1024 };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM'); // the SDK shuts the worker down gracefully on SIGTERM
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
