import { cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/config.js';
import { distFingerprint } from './build-stamp.js';

/**
 * The measured code, frozen: a copy of bin/ and dist/ taken when the benchmark starts. Every
 * worker and every breakdown runs from it, so a rebuild of dist/ by someone else during the
 * run (it takes half an hour) cannot mix two versions of the pipeline into one report. The
 * copy resolves node_modules and the project root from the repository it sits in.
 */

export interface BuildSnapshot {
  root: string;
  /** The snapshot's copy of bin/nordprop.js. */
  bin: string;
  /** The snapshot's dist/. */
  dist: string;
  fingerprint: string;
}

export async function snapshotBuild(workDir: string): Promise<BuildSnapshot> {
  const root = path.join(workDir, 'snapshot');
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await cp(path.join(PROJECT_ROOT, 'dist'), path.join(root, 'dist'), {
    recursive: true,
    filter: (source) => !source.endsWith('.map') && !source.endsWith('.tsbuildinfo'),
  });
  await cp(path.join(PROJECT_ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
  const dist = path.join(root, 'dist');
  return { root, bin: path.join(root, 'bin/nordprop.js'), dist, fingerprint: await distFingerprint(dist) };
}
