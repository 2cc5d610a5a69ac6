import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { PROJECT_ROOT } from '../lib/config.js';

/**
 * The real pipeline worker, `node bin/nordprop.js worker`, as a child process configured only
 * through its environment (as in production). Its peak resident memory is the kernel's
 * high-water mark, VmHWM in /proc/<pid>/status, so one worker process per measured run gives
 * one peak per run. `bin/nordprop.js` may re-exec node with other flags for the worker, so
 * the worker is a process tree: the peak is the largest VmHWM in the tree, and the tree's
 * summed VmRSS is also sampled every 250 ms as a cross-check (VmHWM is only updated lazily
 * by the kernel).
 */

export interface WorkerEnv {
  /** The bin/nordprop.js to run (the benchmark's frozen copy). */
  bin: string;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  dataDir: string;
  inputDir: string;
}

export interface MemoryPeak {
  /** Largest VmHWM in the worker's process tree once it was ready (after bundling the workflow code), before any run. */
  readyBytes: number;
  /** Largest VmHWM in the worker's process tree after the run: the peak of the whole process life. */
  peakBytes: number;
  /** Largest sum of VmRSS over the process tree seen by the 250 ms sampler. */
  sampledTreeRssBytes: number;
  /** How many processes the tree had (2 when bin/nordprop.js re-execs node for the worker). */
  processes: number;
  /** CPU time (user + system) the worker's processes used between ready and the end of the run. */
  cpuSeconds: number;
}

export interface WorkerProcess {
  pid: number;
  /** Reads the peaks now; call before stop(). */
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

/** A field of /proc/<pid>/status in bytes; 0 once the process is gone. */
export async function readStatusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** The pid and all its descendants, from the ppid field of /proc/<pid>/stat. */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isFinite(ppid)) parents.set(Number(name), ppid);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/** utime + stime of the processes, in seconds (clock ticks are 100 per second on Linux). */
async function treeCpuSeconds(pids: number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

async function treeMax(pids: number[], field: 'VmHWM' | 'VmRSS'): Promise<number> {
  return Math.max(0, ...(await Promise.all(pids.map((pid) => readStatusBytes(pid, field)))));
}

async function treeSum(pids: number[], field: 'VmHWM' | 'VmRSS'): Promise<number> {
  return (await Promise.all(pids.map((pid) => readStatusBytes(pid, field)))).reduce((a, b) => a + b, 0);
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
  const child = spawn(process.execPath, [settings.bin, 'worker'], {
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
  // The tree is complete once the worker polls (a re-exec happens before that).
  const tree = await processTree(pid);
  const readyBytes = await treeMax(tree, 'VmHWM');
  const readyCpu = await treeCpuSeconds(tree);
  let sampled = await treeSum(tree, 'VmRSS');
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    treeSum(tree, 'VmRSS')
      .then((bytes) => (sampled = Math.max(sampled, bytes)))
      .finally(() => (sampling = false));
  }, 250);
  exited.then(() => clearInterval(sampler));
  return {
    pid,
    async memoryPeak() {
      clearInterval(sampler);
      sampled = Math.max(sampled, await treeSum(tree, 'VmRSS'));
      const cpuSeconds = (await treeCpuSeconds(tree)) - readyCpu;
      return { readyBytes, peakBytes: await treeMax(tree, 'VmHWM'), sampledTreeRssBytes: sampled, processes: tree.length, cpuSeconds };
    },
    async stop() {
      clearInterval(sampler);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM'); // the SDK shuts the worker down gracefully on SIGTERM
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
