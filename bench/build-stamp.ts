import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../lib/config.js';

/**
 * Which pipeline code was measured: the commit, the uncommitted pipeline files, and a
 * fingerprint of the compiled dist/ the workers run.
 */

const run = promisify(execFile);

async function jsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await jsFiles(full)));
    else if (entry.name.endsWith('.js')) files.push(full);
  }
  return files;
}

/** sha256 over dist/**\/*.js outside dist/bench (the benchmark itself is not the measured code). */
export async function distFingerprint(dist = path.join(PROJECT_ROOT, 'dist')): Promise<string> {
  const files = (await jsFiles(dist)).filter((file) => !file.startsWith(path.join(dist, 'bench') + path.sep)).sort();
  const digest = createHash('sha256');
  for (const file of files) {
    digest.update(path.relative(dist, file));
    digest.update(await readFile(file));
  }
  return digest.digest('hex').slice(0, 12);
}

export interface SourceState {
  commit: string;
  /** Pipeline files with uncommitted changes when the benchmark started. */
  uncommitted: string[];
}

export async function sourceState(): Promise<SourceState> {
  const git = (args: string[]) => run('git', args, { cwd: PROJECT_ROOT }).then((r) => r.stdout, () => '');
  const commit = (await git(['rev-parse', '--short', 'HEAD'])).trim() || 'unknown';
  const status = await git(['status', '--porcelain', '--', 'activities', 'sources', 'lib', 'workflows', 'cli', 'schema', 'store']);
  const uncommitted = status.split('\n').filter(Boolean).map((line) => line.slice(3));
  return { commit, uncommitted };
}
