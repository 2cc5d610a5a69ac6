import os from 'node:os';
import type pg from 'pg';

/**
 * The derive step of a run as the run ledger recorded it (bench/derive-night.ts renders it into
 * BENCHMARKS.md): each dataset's wall time per country, what it wrote, and the whole step's
 * wall time, first dataset's start to last one's end.
 */
export const TARGET_MINUTES = 15;
/** Issue 19's target for a whole nightly refresh of both countries at national size, sources and derive step. */
export const REFRESH_TARGET_MINUTES = 20;

export interface DatasetRow {
  source_id: string;
  country: string;
  outcome: string;
  rows_read: number;
  rows_staged: number;
  changes: number;
  seconds: number;
}

/** A source's wall time in a refresh and its phases' (the ledger's durations_ms), seconds. */
export interface SourceTime {
  sourceId: string;
  seconds: number;
  phases: Record<string, number>;
}

export interface DeriveStep {
  runId: string;
  kind: string;
  startedAt: Date;
  wallSeconds: number;
  /**
   * A refresh: how long its sources took, first start to last end, before the derive step; the
   * whole refresh, first source's start to last dataset's end; the sources that took longest.
   */
  sources?: { count: number; seconds: number; wholeSeconds: number; longest: SourceTime[] };
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
  const sources = (await pool.query<{ source_id: string; started: Date; finished: Date; seconds: number; durations_ms: Record<string, number> }>(
    `SELECT source_id, started_at AS started, finished_at AS finished, extract(epoch FROM finished_at - started_at)::float8 AS seconds, durations_ms
     FROM source_run WHERE run_id = $1 AND source_id NOT LIKE 'derive-%' ORDER BY finished_at - started_at DESC, source_id`,
    [runId],
  )).rows;
  const firstSource = Math.min(...sources.map((r) => r.started.getTime()));
  const summary = sources.length
    ? {
        count: sources.length,
        seconds: (Math.max(...sources.map((r) => r.finished.getTime())) - firstSource) / 1000,
        wholeSeconds: (end - firstSource) / 1000,
        longest: sources.slice(0, 3).map((r) => ({
          sourceId: r.source_id,
          seconds: r.seconds,
          phases: Object.fromEntries(Object.entries(r.durations_ms).map(([phase, ms]) => [phase, Number(ms) / 1000])),
        })),
      }
    : undefined;
  return { runId, kind: run.kind, startedAt: new Date(start), wallSeconds: (end - start) / 1000, ...(summary ? { sources: summary } : {}), datasets: rows };
}

const PHASES = ['download', 'stage', 'validate', 'publish'];
const minutes = (seconds: number) => `${(seconds / 60).toFixed(1)} min`;

/** "; before it, …": the sources of a refresh, the whole refresh against its target, the longest sources. */
function refreshSummary(step: DeriveStep): string {
  const sources = step.sources;
  if (!sources) return '';
  // In pipeline order (jsonb keeps its keys by length, not as written).
  const order = (phase: string) => (PHASES.includes(phase) ? PHASES.indexOf(phase) : PHASES.length);
  const phases = (time: SourceTime) =>
    Object.entries(time.phases).sort(([a], [b]) => order(a) - order(b)).map(([phase, seconds]) => `${phase} ${seconds.toFixed(0)} s`).join(', ');
  return `; before it, the ${step.kind} loaded its ${sources.count} sources in ${minutes(sources.seconds)}` +
    ` (longest: ${sources.longest.map((time) => `${time.sourceId} ${minutes(time.seconds)}${phases(time) ? ` (${phases(time)})` : ''}`).join('; ')})` +
    `. The whole ${step.kind}, its first source's start to its last dataset's end: **${minutes(sources.wholeSeconds)}**` +
    ` (target: under ${REFRESH_TARGET_MINUTES} min, **${sources.wholeSeconds < REFRESH_TARGET_MINUTES * 60 ? 'met' : 'not met'}**)`;
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
      `- run ${i + 1}: \`${s.runId}\` (${s.kind}, derive step from ${s.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC): ${[...new Set(s.datasets.map((d) => d.country))].join(' and ')}, every dataset, in **${minutes(s.wallSeconds)}** (target: within ${TARGET_MINUTES} min, **${s.wallSeconds <= TARGET_MINUTES * 60 ? 'met' : 'not met'}**)` +
      refreshSummary(s),
    ),
    '',
    `| dataset | country | input records | rows | ${steps.map((_, i) => `run ${i + 1}`).join(' | ')} |`,
    `|---|---|---:|---:|${steps.map(() => '---|').join('')}`,
    ...keys.map((row) => `| ${datasetName(row)} | ${row.country} | ${row.rows_read.toLocaleString('en')} | ${row.rows_staged.toLocaleString('en')} | ${steps.map((s) => cell(s, row)).join(' | ')} |`),
    '<!-- national-derive:end -->',
    '',
  ].join('\n');
}

