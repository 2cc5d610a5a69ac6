import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/config.js';

/**
 * `nordprop --version`: package.json's version and, in a git checkout, the commit checked out
 * (with `+changes` when tracked files differ from it). Outside one (an image built without .git)
 * the version alone.
 */
export function versionText(): string {
  const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  const commit = gitCommit();
  return `nordprop ${version}${commit ? ` (commit ${commit})` : ''}`;
}

function gitCommit(): string | undefined {
  // Only the project's own checkout: never a repository the installed package happens to sit in.
  if (!existsSync(path.join(PROJECT_ROOT, '.git'))) return undefined;
  const git = (...args: string[]) => execFileSync('git', ['-C', PROJECT_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
  try {
    const commit = git('rev-parse', '--short=12', 'HEAD').trim();
    let changed = false;
    try {
      git('diff', '--quiet', 'HEAD', '--');
    } catch {
      changed = true; // exit code 1: tracked files differ
    }
    return `${commit}${changed ? '+changes' : ''}`;
  } catch {
    return undefined;
  }
}
