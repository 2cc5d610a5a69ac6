import type { Readable } from 'node:stream';
import type pg from 'pg';

/**
 * The contract a register adapter fulfils. An adapter is the unit a newcomer adds: it says
 * where its input comes from, how to read it, which staging columns it fills and how its
 * staged snapshot merges into the live tables. Download, staging, validation, the run
 * ledger and the workflows are shared and do not change when an adapter is added.
 */

export type Country = 'NO' | 'SE';

/** A value for one staging column; arrays become PostgreSQL text arrays. */
export type CellValue = string | number | boolean | null | readonly string[];

export interface StagingColumn {
  name: string;
  /** PostgreSQL type in the staging table, e.g. `text`, `double precision`, `geometry`. */
  type: string;
}

export type ParsedRecord =
  | { kind: 'row'; position: number; values: CellValue[] }
  | { kind: 'reject'; position: number; reason: string; raw: string };

/** Which live rows a snapshot replaces: the whole country, or only the municipalities it covers. */
export interface PublishScope {
  country: Country;
  municipalities: string[] | null;
}

export interface ChangeCounts {
  inserted: number;
  updated: number;
  deleted: number;
}

export interface MergeResult extends ChangeCounts {
  /** Per live table, for the ledger's details. */
  tables: Record<string, ChangeCounts>;
  /** Milliseconds per publish step, for the ledger's details. */
  stepsMs?: Record<string, number>;
}

export interface RepairResult {
  repaired: number;
  rejected: number;
}

export interface StagingContext {
  client: pg.PoolClient;
  /** Schema-qualified, quoted staging table name. */
  stagingTable: string;
  runId: string;
  sourceId: string;
}

export interface SourceAdapter {
  id: string;
  country: Country;
  title: string;
  /** The register's national download. */
  defaultInput: string;
  /** The register's file name; with NORDPROP_INPUT_DIR the source reads `<dir>/<inputFileName>`. */
  inputFileName: string;
  /**
   * Sources whose publish this one reads (e.g. addresses joined to the parcels that cover
   * them): in a refresh that includes them, this source starts after they finish.
   */
  dependsOn?: string[];
  /** Picks the data file inside a zip download (names differ between extracts). */
  zipEntry: RegExp;
  /** Columns the parser fills, in `values` order. `src_pos` and `row_hash` are added around them. */
  stagingColumns: StagingColumn[];
  /** Columns that identify a row; duplicates are quarantined at validation. */
  keyColumns: string[];
  /**
   * Reads the data file as a stream; yields rows and rejects in file order, in batches so the
   * per-row cost stays a function call rather than an await.
   */
  parse(input: Readable, context: { fileName: string }): AsyncIterable<ParsedRecord[]>;
  /** Checks that need the database (geometry validity): repairs or quarantines staged rows. */
  repairStaged?(context: StagingContext): Promise<RepairResult>;
  /** Live rows in the scope, for the row-drop check. */
  countLive(client: pg.PoolClient, scope: PublishScope): Promise<number>;
  /** Merges the staged snapshot into the live tables by key and row hash, inside the caller's transaction. */
  publish(context: StagingContext, scope: PublishScope): Promise<MergeResult>;
}
