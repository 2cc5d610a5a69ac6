import type { Country } from '../lib/domain/country.js';
import type { PublishScope } from '../lib/domain/publish-scope.js';
import type { StagingFingerprint } from './staging-table.js';

// The run ledger's summaries live beside its SQL (lib/run-ledger.ts); workflows and activities
// keep importing them from here.
export type { RunKind, RunOutcome, RunSummary, SourceOutcome, SourceRunSummary } from '../lib/domain/run-summary.js';

/** What workflows pass between activities: references and counts, never rows. */

export interface PlannedSource {
  sourceId: string;
  country: Country;
  /** The adapter's `dependsOn`. */
  dependsOn: string[];
}

export interface IngestSourceInput {
  runId: string;
  sourceId: string;
  /** Explicit input (backfill); otherwise the worker's configured input for the source. */
  input?: string;
  expectedSha256?: string;
  force: boolean;
}

export interface Artifact {
  unchanged: boolean;
  input: string;
  artifactPath: string;
  sha256: string;
  bytes: number;
  /**
   * The own task queue of the worker that holds the artifact (lib/temporal/worker-task-queue.ts):
   * the activities that read the file run there. Absent from an older worker's artifact.
   */
  workerTaskQueue?: string;
}

/**
 * A stage of a source with record hashes (lines, GML features, GeoPackage rows;
 * activities/record-hashes.ts): the run's records table and how much of the file was already
 * live. A record's number (`line` in the table) is its line, feature number or fid.
 */
export interface LineRecords {
  /** `staging."r_<source>_<run>"`: (line, record_hash) of every record line of the file. */
  table: string;
  /** Record lines in the file. */
  total: number;
  /** Lines the last publish had (not parsed, not staged: live keeps their rows); 0 on a full stage. */
  unchanged: number;
  /**
   * An increment of a source whose live rows are its record groups (se-building's buildings,
   * several parts each; liveRowGroupColumn): the live rows it leaves as they are, the groups
   * none of whose records changed. `unchanged` counts lines, and lines are not rows there.
   */
  unchangedRows?: number;
  /** Whether only changed lines were staged (the publish then merges an increment). */
  increment: boolean;
  /** An increment: the source's last published run when it was staged, which the increment is relative to. */
  basedOn?: string;
  /**
   * An increment: `staging."c_<source>_<run>"`, the stage's comparison of the file's records with
   * those `basedOn` published, (line, record_group, record_key, record_hash): a new line with its
   * hash and group (no key), or a published record the file no longer holds (no line); and its
   * rows, which the publish checks (crash recovery empties UNLOGGED tables).
   */
  changes?: {
    table: string;
    rows: number;
    /**
     * The table the comparison read the published records from (the source's partition of
     * `source_record`, else `source_record`): a gone record's row in the changes carries its
     * `record_ctid` there, and the publish deletes it by that. Absent from a stage made before
     * 2026-12-02 (its changes have no such column): the publish then finds them by hash.
     */
    publishedTable?: string;
  };
  /**
   * An increment: the live rows (SourceAdapter.countLive over the country) the stage counted to
   * see that the published records describe them; validate's row-drop check reuses the count.
   */
  liveRows?: number;
}

export interface StagedSnapshot {
  stagingTable: string;
  /** pg_postmaster_start_time() while staging: a restart since then may have emptied the (UNLOGGED) table. */
  serverStartedAt: string;
  rowsRead: number;
  rowsStaged: number;
  rowsRejected: number;
  /**
   * The file's record hashes (activities/record-hashes.ts); with `increment`, staging holds its
   * changed records only. Named for the first kind of record: a run staged before a rename and
   * published after it would lose the field, and publish an increment as a whole snapshot.
   */
  lineRecords?: LineRecords;
}

export interface ValidatedSnapshot extends StagedSnapshot {
  rowsRepaired: number;
  liveRows: number;
  scope: PublishScope;
  /** What the staging table held when validated; the publish merges only exactly that. */
  fingerprint: StagingFingerprint;
  /** The staged rows are changes from the source's feed (see IncrementalFeed), not a snapshot. */
  increment?: boolean;
  /** Where the row drop is judged (not forced, live not empty): the fewest live rows the publish may leave (activities/row-drop.ts). */
  rowDropFloor?: number;
}

/** Heartbeat details: progress for the CLI, and where a retried activity resumes. */
export interface ProgressDetails {
  phase: 'download' | 'stage';
  bytes: number;
  totalBytes: number | null;
  rows: number;
  rejected: number;
  /** Stage: last file position whose rows are committed to staging. */
  committedPosition?: number;
  /** Stage: how many staged rows those committed chunks hold, checked before resuming. */
  committedRows?: number;
  /** Stage: pg_postmaster_start_time() of the attempt; a retry after a restart starts over. */
  serverStartedAt?: string;
  /** Stage of a line-record night: the publish its changed lines were chosen against; a retry against another starts over. */
  linesBasedOn?: string;
}
