import os from 'node:os';
import type pg from 'pg';

/**
 * The derive step of a run as the run ledger recorded it (bench/derive-night.ts renders it into
 * BENCHMARKS.md): each dataset's wall time per country, what it wrote, and the whole step's
 * wall time, first dataset's start to last one's end.
 */
export const TARGET_MINUTES = 15;

export interface DatasetRow {
  source_id: string;
  country: string;
  outcome: string;
  rows_read: number;
  rows_staged: number;
  changes: number;
  seconds: number;
}

export interface DeriveStep {
  runId: string;
  kind: string;
  startedAt: Date;
  wallSeconds: number;
  /** A refresh: how long its sources took, first start to last end, before the derive step. */
  sources?: { count: number; seconds: number };
  datasets: DatasetRow[];
}

/** The derive rows of a run: a `nordprop derive` run's own, or a refresh's derive step (run `<id>-derive`, workflows/refresh.ts). */
export async function deriveStep(pool: pg.Pool, runId: string): Promise<DeriveStep> {
  const run = (await pool.query(`SELECT run_id, kind FROM run WHERE run_id = $1`, [runId])).rows[0];
  if (!run) throw new Error(`no run ${runId} in the ledger`);
  const rows = (await pool.query<DatasetRow & { started_at: Date; finished_at: Date | null }>(
    `SELECT source_id, country, outcome, rows_read::float8 AS rows_read, rows_staged::float8 AS rows_staged,
            (inserted + updated + deleted)::float8 AS changes, extract(epoch FROM finished_at - started_at)::float8 AS seconds,
            started_at, finished_at
     FROM source_run WHERE run_id IN ($1, $1 || '-derive') AND source_id LIKE 'derive-%'
     ORDER BY country, started_at`,
    [runId],
  )).rows;
  if (!rows.length) throw new Error(`run ${runId} has no derived datasets in the ledger`);
  const unfinished = rows.filter((r) => !r.finished_at);
  if (unfinished.length) throw new Error(`run ${runId} is still computing ${unfinished.map((r) => r.source_id).join(', ')}`);
  const start = Math.min(...rows.map((r) => r.started_at.getTime()));
  const end = Math.max(...rows.map((r) => r.finished_at!.getTime()));
  const sources = (await pool.query(
    `SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 AS seconds, count(*)::int AS count
     FROM source_run WHERE run_id = $1 AND source_id NOT LIKE 'derive-%'`,
    [runId],
  )).rows[0];
  return { runId, kind: run.kind, startedAt: new Date(start), wallSeconds: (end - start) / 1000, sources: sources.count ? sources : undefined, datasets: rows };
}

export function renderDeriveNight(steps: DeriveStep[], sizes: { country: string; parcels: number; transactions: number; companies: number }[]): string {
  const datasetName = (row: DatasetRow) => row.source_id.replace(/^derive-[a-z]{2}-/, '');
  const keys = [...new Map(steps.flatMap((s) => s.datasets).map((d) => [d.source_id, d])).values()];
  const cell = (step: DeriveStep, row: DatasetRow) => {
    const found = step.datasets.find((d) => d.source_id === row.source_id);
    return found ? `${found.seconds.toFixed(0)} s, ${found.outcome}, ${found.changes.toLocaleString('en')} changes` : '–';
  };
  return [
    '<!-- national-derive:start -->',
    '## Derived datasets on a national store, as the nightly workflow runs them',
    '',
    `From the run ledger (\`node dist/bench/derive-night.js\`), on the store a nightly refresh loaded from the national sample of both countries (${sizes
      .map((c) => `${c.country}: ${c.parcels.toLocaleString('en')} parcels, ${c.transactions.toLocaleString('en')} registered transactions, ${c.companies.toLocaleString('en')} companies`)
      .join('; ')}), ${os.cpus().length} cores, PostgreSQL as installed.`,
    'The workflow computes the two countries side by side and, within a country, each dataset after those it reads; a dataset\'s seconds are its wall time in that run, sharing the machine with the other country\'s.',
    '',
    ...steps.map((s, i) =>
      `- run ${i + 1}: \`${s.runId}\` (${s.kind}, derive step from ${s.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC): ${[...new Set(s.datasets.map((d) => d.country))].join(' and ')}, every dataset, in **${(s.wallSeconds / 60).toFixed(1)} min** (target: within ${TARGET_MINUTES} min, **${s.wallSeconds <= TARGET_MINUTES * 60 ? 'met' : 'not met'}**)` +
      (s.sources ? `; before it, the ${s.kind} loaded its ${s.sources.count} sources in ${(s.sources.seconds / 60).toFixed(1)} min` : ''),
    ),
    '',
    `| dataset | country | input records | rows | ${steps.map((_, i) => `run ${i + 1}`).join(' | ')} |`,
    `|---|---|---:|---:|${steps.map(() => '---|').join('')}`,
    ...keys.map((row) => `| ${datasetName(row)} | ${row.country} | ${row.rows_read.toLocaleString('en')} | ${row.rows_staged.toLocaleString('en')} | ${steps.map((s) => cell(s, row)).join(' | ')} |`),
    '<!-- national-derive:end -->',
    '',
  ].join('\n');
}

