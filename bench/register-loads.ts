/**
 * End-to-end loads of every register beyond those the benchmark compares against the COPY
 * ceiling and ogr2ogr: each source's sample file backfilled through a fresh worker, `runs`
 * times, its rows of its country deleted before each run so every run is a first load.
 * Sources run in registry order, so a source that reads another's publish (`dependsOn`) finds
 * it published.
 */
import { stat } from 'node:fs/promises';
import type pg from 'pg';
import { SOURCES } from '../sources/registry.js';
import { quoteIdent } from '../lib/db.js';
import { settle } from './database.js';
import type { LoadRun } from './results.js';


export interface RegisterLoads {
  sourceId: string;
  title: string;
  country: string;
  inputPath: string;
  inputBytes: number;
  loads: LoadRun[];
}

/** Deletes the source's country rows from the live tables its last publish named, and its runs. */
async function resetRegister(pool: pg.Pool, sourceId: string, country: string): Promise<void> {
  const last = await pool.query<{ tables: Record<string, unknown> | null }>(
    `SELECT details->'tables' AS tables FROM source_run WHERE source_id = $1 AND outcome = 'published' ORDER BY finished_at DESC LIMIT 1`,
    [sourceId],
  );
  for (const table of Object.keys(last.rows[0]?.tables ?? {})) {
    const hasCountry = await pool.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND column_name = 'country'`, [table]);
    if (hasCountry.rowCount) await pool.query(`DELETE FROM ${quoteIdent(table)} WHERE country = $1`, [country]);
    else await pool.query(`TRUNCATE ${quoteIdent(table)}`);
  }
  await pool.query(`DELETE FROM source_reject WHERE source_id = $1`, [sourceId]);
  await pool.query(`DELETE FROM source_run WHERE source_id = $1`, [sourceId]);
  await pool.query(`DELETE FROM run r WHERE NOT EXISTS (SELECT 1 FROM source_run s WHERE s.run_id = r.run_id)`);
  await settle(pool);
}

export async function measureRegisterLoads(
  pool: pg.Pool,
  runs: number,
  sourceFiles: Record<string, string>,
  /** Only this country's sources; every source when undefined. */
  country: string | undefined,
  /** Sources already measured against the ceiling and ogr2ogr (bench/run.ts), left out here. */
  compared: string[],
  loadOnce: (sourceId: string, inputPath: string) => Promise<LoadRun>,
  log: (line: string) => void,
): Promise<RegisterLoads[]> {
  const results: RegisterLoads[] = [];
  for (const source of SOURCES.filter((s) => (!country || s.country === country) && !compared.includes(s.id))) {
    const inputPath = sourceFiles[source.id];
    if (!inputPath) {
      log(`== ${source.id}: no sample file, left out`);
      continue;
    }
    log(`== ${source.id}: ${runs} end-to-end load(s)`);
    const loads: LoadRun[] = [];
    for (let i = 1; i <= runs; i++) {
      await resetRegister(pool, source.id, source.country);
      const load = await loadOnce(source.id, inputPath);
      loads.push(load);
      log(`${source.id} run ${i}/${runs}: ${load.seconds.toFixed(1)} s, ${load.rowsStaged} rows, ${Math.round(load.rowsStaged / load.seconds)} rows/s, VmHWM ${Math.round(load.memory.peakBytes / 2 ** 20)} MiB`);
    }
    results.push({ sourceId: source.id, title: source.title, country: source.country, inputPath, inputBytes: (await stat(inputPath)).size, loads });
  }
  return results;
}
