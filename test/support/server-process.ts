import { spawn } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/config.js';

export interface ServerProcess {
  /** What it has printed on stdout and stderr so far. */
  readonly output: string;
  /** SIGTERM (or `signal`), then its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A TypeScript entry point of the project run through tsx with `env` added, once it prints `listening`. */
export async function startServerProcess(entry: string, args: string[], env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, entry), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NORDPROP_ENV_FILE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
  return {
    get output() {
      return output;
    },
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}
