import { mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { runningSourceRuns } from '../lib/run-ledger.js';

/**
 * A folder of a stage's own in the worker's data folder, `scratch/<run>/<source>`, for the
 * files it writes besides its staging table (ParseContext.scratchDir): a night's changed lines
 * or GML features (record-spool.ts), a zipped GeoPackage extracted for SQLite, a zip member of a
 * tar bundle spooled for random access. They went to the system's temporary folder (RAM on many
 * hosts) and beside the artifact, which for a file from the inbox or `--input` is the operator's
 * folder (read-only on some hosts, shared by workers on others), and a worker killed mid-stage
 * left them there: a national Byggnad GeoPackage is gigabytes.
 *
 * The stage empties its folder when it starts, so a retried attempt removes what a killed one
 * left, and removes it when it ends. It also removes the folders of stages whose run the ledger
 * no longer has running (their attempt was killed and never retried here, or the run was
 * deleted): folders are matched to runs by the ledger, not by age or process, so workers that
 * share a data folder never remove each other's running stage's files.
 */
export interface StageScratch {
  folder: string;
  remove(): Promise<void>;
}

const SCRATCH = 'scratch';

export async function openStageScratch(pool: pg.Pool, dataDir: string, sourceId: string, runId: string): Promise<StageScratch> {
  const root = path.join(dataDir, SCRATCH);
  await removeFinished(pool, root);
  const folder = path.join(root, safeName(runId), safeName(sourceId));
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  return {
    folder,
    async remove() {
      await rm(folder, { recursive: true, force: true });
      // The run's folder goes with its last stage's (another stage of the run may still be in it).
      await rmdir(path.dirname(folder)).catch(() => undefined);
    },
  };
}

/** Run and source ids are the pipeline's own (no path separators); guard against one anyway. */
function safeName(id: string): string {
  if (!id || id === '.' || id === '..' || /[\\/]/.test(id)) throw new Error(`not usable as a folder name: ${JSON.stringify(id)}`);
  return id;
}

async function listFolders(folder: string): Promise<string[]> {
  return (await readdir(folder, { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

/** Removes the scratch folders of stages whose ledger entry is not `running` (or is gone). */
async function removeFinished(pool: pg.Pool, root: string): Promise<void> {
  const folders: { runId: string; sourceId: string }[] = [];
  for (const runId of await listFolders(root)) {
    for (const sourceId of await listFolders(path.join(root, runId))) folders.push({ runId, sourceId });
  }
  const keep = await runningSourceRuns(pool, folders);
  for (const { runId, sourceId } of folders) {
    if (keep.has(`${runId}/${sourceId}`)) continue;
    await rm(path.join(root, runId, sourceId), { recursive: true, force: true });
    await rmdir(path.join(root, runId)).catch(() => undefined);
  }
}
