import type { ChangeCounts } from './change-counts.js';

/** What the run ledger says of a run and of each source in it (lib/run-ledger.ts). */

/** `derive`: the derived datasets' own runs (activities/derive.ts). */
export type RunKind = 'nightly' | 'refresh' | 'backfill' | 'derive';

export type SourceOutcome = 'published' | 'unchanged' | 'failed';

export interface SourceRunSummary extends ChangeCounts {
  runId: string;
  sourceId: string;
  outcome: SourceOutcome;
  rowsRead: number;
  rowsStaged: number;
  rowsRejected: number;
  rowsRepaired: number;
  /** A line-record source: rows read that had not changed since its last publish (not staged). */
  rowsUnchanged?: number;
  durationMs: number;
  error?: string;
}

export type RunOutcome = 'succeeded' | 'partial' | 'failed';

export interface RunSummary {
  runId: string;
  kind: RunKind;
  outcome: RunOutcome;
  durationMs: number;
  sources: SourceRunSummary[];
  /** A nightly refresh: the derive run it started after the sources (workflows/derive.ts). */
  derived?: RunSummary;
}
