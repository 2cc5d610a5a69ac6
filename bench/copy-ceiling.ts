import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { quoteIdent } from '../lib/db.js';
import { settle } from './database.js';
import { timed } from './stats.js';

/**
 * The ceiling: PostgreSQL loading the already-normalized rows of a published table with a
 * server-side COPY from a file, i.e. no parsing, reprojection, network or merge on our side.
 * Three shapes of target table: with the live table's indexes (what publishing writes into),
 * with none, and with none during COPY and the same indexes built afterwards.
 */

export type CeilingShape = 'indexed' | 'bare' | 'bare-then-index';

export interface CeilingMeasurement {
  shape: CeilingShape;
  rows: number;
  copySeconds: number;
  /** Building the live table's indexes after the COPY (bare-then-index only). */
  indexSeconds: number;
  /** Each index's build, by the live table's index name (bare-then-index only). */
  indexBuilds: { index: string; seconds: number }[];
  seconds: number;
}

export interface CopyDump {
  table: string;
  file: string;
  rows: number;
  bytes: number;
  dispose(): Promise<void>;
}

/** Writes the live table's rows to a file the server can read back (server-side COPY TO). */
export async function dumpTable(pool: pg.Pool, table: string): Promise<CopyDump> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-bench-copy-'));
  await chmod(dir, 0o777); // the server process (user postgres) writes here
  const file = path.join(dir, `${table}.copy`);
  const result = await pool.query(`COPY (SELECT * FROM ${quoteIdent(table)}) TO '${file}'`);
  const bytes = (await stat(file)).size;
  return { table, file, rows: result.rowCount ?? 0, bytes, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The live table's index definitions, retargeted at another table. */
async function indexDefinitions(pool: pg.Pool, table: string, target: string): Promise<{ index: string; ddl: string }[]> {
  const result = await pool.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1`, [table]);
  return result.rows.map(({ indexdef }) => {
    const match = /^CREATE (UNIQUE )?INDEX (\S+) ON (\S+) (.*)$/.exec(indexdef);
    if (!match) throw new Error(`cannot read index definition: ${indexdef}`);
    return { index: match[2], ddl: `CREATE ${match[1] ?? ''}INDEX ${quoteIdent(`${target}_${match[2]}`.slice(0, 63))} ON ${quoteIdent(target)} ${match[4]}` };
  });
}

export async function measureCopy(pool: pg.Pool, dump: CopyDump, shape: CeilingShape): Promise<CeilingMeasurement> {
  const target = `ceiling_${dump.table}`;
  await pool.query(`DROP TABLE IF EXISTS ${quoteIdent(target)}`);
  // LIKE always copies NOT NULL; INCLUDING ALL adds defaults, constraints and every index.
  const like = shape === 'indexed' ? 'INCLUDING ALL' : 'INCLUDING DEFAULTS';
  await pool.query(`CREATE TABLE ${quoteIdent(target)} (LIKE ${quoteIdent(dump.table)} ${like})`);
  const indexes = shape === 'bare-then-index' ? await indexDefinitions(pool, dump.table, target) : [];
  await settle(pool);
  try {
    const copy = await timed(() => pool.query(`COPY ${quoteIdent(target)} FROM '${dump.file}'`));
    const rows = copy.result.rowCount ?? 0;
    if (rows !== dump.rows) throw new Error(`COPY into ${target} loaded ${rows} rows, the dump has ${dump.rows}`);
    const indexBuilds: CeilingMeasurement['indexBuilds'] = [];
    for (const { index, ddl } of indexes) indexBuilds.push({ index, seconds: (await timed(() => pool.query(ddl))).seconds });
    const indexSeconds = indexBuilds.reduce((sum, b) => sum + b.seconds, 0);
    return { shape, rows, copySeconds: copy.seconds, indexSeconds, indexBuilds, seconds: copy.seconds + indexSeconds };
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${quoteIdent(target)}`);
  }
}
