import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStageScratch } from '../../activities/stage-scratch.js';
import { createTestDatabase } from '../support/database.js';
import { tempDir } from '../sample/helpers.js';

/**
 * A stage's files besides its staging table (a GML night's changed features, an extracted
 * GeoPackage) live in the worker's data folder, `scratch/<run>/<source>`. A worker killed
 * mid-stage left them in /tmp and beside the operator's input file, for good.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

/** A run in the ledger with one source entry whose outcome is `outcome`. */
async function ledgerEntry(runId: string, sourceId: string, outcome: 'running' | 'published' | 'failed'): Promise<void> {
  await pool.query(`INSERT INTO run (run_id, kind, sources) VALUES ($1, 'backfill', ARRAY[$2]) ON CONFLICT DO NOTHING`, [runId, sourceId]);
  await pool.query(`INSERT INTO source_run (run_id, source_id, country, outcome) VALUES ($1, $2, 'NO', $3)`, [runId, sourceId, outcome]);
}

/** What a killed attempt of the stage left: a file in its scratch folder. */
async function leftBehind(dataDir: string, runId: string, sourceId: string): Promise<string> {
  const file = path.join(dataDir, 'scratch', runId, sourceId, 'Bygning.gml');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '<spooled features/>');
  return file;
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('a stage\'s scratch folder', () => {
  it('is emptied when the stage starts (a retry removes what a killed attempt left) and removed when it ends', async () => {
    const dataDir = await tempDir('scratch-retry');
    await ledgerEntry('run-retry', 'no-building', 'running');
    const killed = await leftBehind(dataDir, 'run-retry', 'no-building');

    const scratch = await openStageScratch(pool, dataDir, 'no-building', 'run-retry');
    expect(scratch.folder).toBe(path.join(dataDir, 'scratch', 'run-retry', 'no-building'));
    expect(existsSync(killed)).toBe(false);
    expect(await readdir(scratch.folder)).toEqual([]);
    await scratch.remove();
    expect(await readdir(path.join(dataDir, 'scratch'))).toEqual([]);
  });

  it('removes the folders of stages the ledger has not running, and keeps those of running ones', async () => {
    const dataDir = await tempDir('scratch-sweep');
    await ledgerEntry('run-done', 'no-building', 'published');
    await ledgerEntry('run-failed', 'se-building', 'failed');
    await ledgerEntry('run-busy', 'no-cadastre', 'running');
    await ledgerEntry('run-busy', 'no-building', 'failed');
    const done = await leftBehind(dataDir, 'run-done', 'no-building');
    const failed = await leftBehind(dataDir, 'run-failed', 'se-building');
    const busy = await leftBehind(dataDir, 'run-busy', 'no-cadastre');
    const busyRunsFailedSource = await leftBehind(dataDir, 'run-busy', 'no-building');
    // A run deleted from the ledger (or never in this database) holds nothing any more.
    const unknown = await leftBehind(dataDir, 'run-gone', 'no-address');

    const scratch = await openStageScratch(pool, dataDir, 'no-address', 'run-new');
    for (const file of [done, failed, busyRunsFailedSource, unknown]) expect(existsSync(file), file).toBe(false);
    // Another worker sharing the data folder may be staging it right now.
    expect(existsSync(busy)).toBe(true);
    expect((await readdir(path.join(dataDir, 'scratch'))).sort()).toEqual(['run-busy', 'run-new']);
    // Another stage of the same run keeps the run's folder when this one ends.
    await scratch.remove();
    expect(await readdir(path.join(dataDir, 'scratch'))).toEqual(['run-busy']);
  });

  it('refuses an id that would name a folder elsewhere', async () => {
    const dataDir = await tempDir('scratch-names');
    await expect(openStageScratch(pool, dataDir, 'no-address', '../outside')).rejects.toThrow(/not usable as a folder name/);
    await expect(openStageScratch(pool, dataDir, '..', 'run')).rejects.toThrow(/not usable as a folder name/);
  });
});
