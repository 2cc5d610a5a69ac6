import type { Readable } from 'node:stream';
import type pg from 'pg';
import type { CellValue } from '../lib/domain/cell-value.js';
import type { ChangeCounts } from '../lib/domain/change-counts.js';
import type { Country } from '../lib/domain/country.js';
import type { PublishScope } from '../lib/domain/publish-scope.js';
import type { LayerSpec } from './formats/geopackage-input.js';

/**
 * The contract a register adapter fulfils. An adapter is the unit a newcomer adds: it says
 * where its input comes from, how to read it, which staging columns it fills and how its
 * staged snapshot merges into the live tables. Download, staging, validation, the run
 * ledger and the workflows are shared and do not change when an adapter is added.
 */

// The domain types the contract speaks in live in lib/domain (the ground floor, which every
// layer may import); re-exported so that an adapter reads its whole contract from this file.
export type { CellValue, ChangeCounts, Country, PublishScope };

/** What one input covers: the whole country, or the municipalities of its staged rows. */
export type InputScope = 'country' | 'staged-municipalities';

export interface StagingColumn {
  name: string;
  /** PostgreSQL type in the staging table, e.g. `text`, `double precision`, `geometry`. */
  type: string;
}

export type ParsedRecord =
  | { kind: 'row'; position: number; values: CellValue[] }
  | { kind: 'reject'; position: number; reason: string; raw: string };

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
  /**
   * Set when the staging table holds only the records that changed since the source's last
   * publish (a line-record source's night, see `lineRecords`): the table of the keys whose
   * records are gone from the file (its columns are the source's key columns, as staged, or
   * its record group's column, see `RecordGroup`). The publish removes those live rows and
   * leaves every other row outside staging as it is, instead of removing what staging lacks.
   */
  removedKeys?: string;
}

export interface ParseContext {
  /** The data file's own name (the zip entry's, or the file's). */
  fileName: string;
  /**
   * The downloaded artifact on disk, for formats that need a file rather than a stream
   * (a GeoPackage is an SQLite database: opened in place, or its zip entry extracted beside it).
   */
  artifactPath?: string;
  /**
   * A folder of the stage's own for files a format must write (a zipped GeoPackage extracted for
   * SQLite); removed when the stage ends. Without it, such a file goes to a temporary folder.
   */
  scratchDir?: string;
  /**
   * A night of a source with record hashes whose records are rows (`geoPackageRecords`) or a
   * bundle's lines (`bundleRecords`): the positions to parse; every other record is unchanged
   * since the last publish and is skipped.
   */
  keepPosition?: (position: number) => boolean;
}

/**
 * Records that make one live row together (se-building's parts, which share an
 * `objektidentitet`, dissolve into one building). A night then parses every record of a group
 * any changed or removed record belongs to, so the publish rebuilds the row from all of them;
 * the group is the record's key in `source_record` and in `StagingContext.removedKeys`.
 */
export interface RecordGroup extends GroupKey {
  /** The layer column that names the group, as the hash pass reads it (before any parse). */
  column: string;
  /** The group's name from the column's stored value: the same function the parser applies. */
  value(stored: unknown): string | null;
}

/** How a source's record groups are named in staging and counted in live (RecordGroup, bundleRecords). */
export interface GroupKey {
  /** The staging column the parser writes the group to (its record key in `source_record`). */
  staged: string;
  /**
   * The groups live holds, to compare with the groups the published hashes name; without it,
   * `countLive` (a source whose live rows are its groups, as se-building's buildings).
   */
  countLive?(client: pg.PoolClient): Promise<number>;
}

/** How a file's records are its lines (SourceAdapter.lineRecords). */
export interface LineLayout {
  /** The first non-empty line is the header: no record, and part of every record's hash. */
  header: boolean;
  /** A quoted CSV's quote character (csv-parse reads it). */
  quote?: string;
}

/** A data member of a bundle whose records are its lines (SourceAdapter.bundleRecords). */
export interface BundleMemberRecords extends LineLayout {
  /**
   * The group of a record from its line's bytes, given the member's header line (without its
   * line break): the value the parser writes to the group's staging column, or null where the
   * line has none the parser would accept (the parser rejects it).
   */
  groupOf?(header: Buffer | undefined): (line: Buffer) => string | null;
}

export interface SourceAdapter {
  id: string;
  country: Country;
  title: string;
  /**
   * The page that documents the source, from the repository root (`docs/sources/<id>.md`, its
   * exchange format's page, or a page it shares with its sibling sources): what the file is, how
   * to obtain it and the rules the adapter applies.
   */
  docs: string;
  /** The register's national download. */
  defaultInput: string;
  /** The register's file name; with NORDPROP_INPUT_DIR the source reads `<dir>/<inputFileName>`. */
  inputFileName: string;
  /**
   * Sources whose publish this one reads (e.g. addresses joined to the parcels that cover
   * them): in a refresh that includes them, this source starts after they finish.
   */
  dependsOn?: string[];
  /** Request headers a register's download needs (Brønnøysund answers 406 without its media type). */
  downloadHeaders?(url: string): Record<string, string>;
  /** Picks the data file inside a zip download (names differ between extracts). */
  zipEntry: RegExp;
  /** Columns the parser fills, in `values` order. `src_pos` and `row_hash` are added around them. */
  stagingColumns: StagingColumn[];
  /** Columns that identify a row (`src_pos` where only the position in the file does); duplicates are quarantined at validation. */
  keyColumns: string[];
  /**
   * Reads the data file as a stream; yields rows and rejects in file order, in batches so the
   * per-row cost stays a function call rather than an await.
   */
  parse(input: Readable, context: ParseContext): AsyncIterable<ParsedRecord[]>;
  /**
   * Every record is one line of the file, read with readUnquotedLines (a CSV without quoted
   * newlines, JSON Lines) or, with `quote`, with csv-parse (a quoted CSV: a file where a quoted
   * field holds a line break is staged whole), and its row depends on nothing but that line and,
   * with `header`, the file's first non-empty line. A national run then parses only the lines
   * that changed since the source's last publish (activities/record-hashes.ts). Needs a parser
   * that numbers records by line, empty lines counted, a publish that honours
   * `StagingContext.removedKeys` (publishInto does) and live rows one per staged row. A source
   * that reads several formats gives the layout by the data file's name, or none where the
   * file's records are not its lines (a tar bundle: staged whole).
   */
  lineRecords?: LineLayout | ((fileName: string) => LineLayout | undefined);
  /**
   * The same for a GML feature collection: every record is one feature element of this local
   * name (any prefix), numbered as the parser numbers its positions, and its row depends on
   * nothing but the element and the CRS its ancestors state (sources/formats/gml-feature-records.ts).
   */
  featureRecords?: { element: string };
  /**
   * The same for a GeoPackage layer: every record is one row of the layer `spec` names, its
   * position its fid, and its row depends on nothing but the columns read and the geometry
   * blob (sources/formats/geopackage-records.ts).
   */
  geoPackageRecords?: LayerSpec & { group?: RecordGroup };
  /**
   * The same for a tar bundle whose data members are line records (each as `lineRecords`
   * describes), positioned member ordinal × 10⁹ + line (sources/formats/bundle.ts). Its
   * records make live rows in groups across members (se-business: Bolagsverket's entry, SCB's
   * unit and SCB's workplaces of one organisation number make one company), so a night parses
   * every record of a group that has a new or a removed record, in every member, as a
   * geoPackageRecords group does. The parser takes `ParseContext.keepPosition` and reads each
   * member with keptLinesOf. A member neither `member` nor `context` knows stages the bundle
   * whole. Without `group`, a record is its own row, named by the source's key columns.
   */
  bundleRecords?: {
    /** The bundle's data files, as the parser picks them (readBundle's `dataFile`). */
    dataFile: RegExp;
    member(name: string): BundleMemberRecords | undefined;
    /**
     * Members that hold no records but that every later record is read with (se-transactions'
     * code tables, which name the codes its sales carry). The parser reads them whole every
     * time; their bytes go into the hash of every record after them, so a changed one makes
     * every such record read as changed. One after a data member stages the bundle whole.
     */
    context?(name: string): boolean;
    group?: GroupKey;
  };
  /** Checks that need the database (geometry validity): repairs or quarantines staged rows. */
  repairStaged?(context: StagingContext): Promise<RepairResult>;
  /** Live rows in the scope, for the row-drop check; the staged snapshot, for a source whose files each hold one part of a table. */
  countLive(client: pg.PoolClient, scope: PublishScope, stagingTable: string): Promise<number>;
  /**
   * Its staged records are not its live rows one for one (se-business: a company is made of
   * Bolagsverket's and SCB's record of it, a workplace of SCB's), so what validate counts cannot
   * show a row drop: the publish counts live (`countLive`) again after its merge, in its
   * transaction, and fails over the limit with live as it was.
   */
  rowDropAfterMerge?: boolean;
  /** Merges the staged snapshot into the live tables by key and row hash, inside the caller's transaction. */
  publish(context: StagingContext, scope: PublishScope): Promise<MergeResult>;
  /**
   * Which live rows an input replaces (the publish scope rule): `country`, or only the
   * municipalities its staged rows hold, so that loading one municipality's extract never
   * deletes the rest of the country. Pick a rule from input-scope.ts. Whatever the rule, the
   * register's national download (`defaultInput`) and its change feed replace the whole country.
   */
  scopeOf(input: string): InputScope;
  /**
   * Which parts of the source's live data an input replaces, where its inputs replace different
   * parts (Brønnøysund's enheter and underenheter downloads). A file is `unchanged` when it
   * equals the last successful run that replaced any of the same parts. Default: one part.
   */
  snapshotParts?(input: string): string[];
  /** A register that also publishes what changed: runs on its change feed fetch and apply only that. */
  increment?: IncrementalFeed;
}

/**
 * The incremental extension of the snapshot model, for a register with a change feed
 * (Brønnøysund's `oppdateringer`). A snapshot run downloads one file and replaces the live rows
 * in its scope with it. When the input names the feed instead (`accepts`), the same four
 * activities run with three differences:
 * - download calls `fetchChanges`: the changes since the position stored by the last publish
 *   go into one local file (no change: the run is `unchanged`, nothing else runs);
 * - validate skips the row-drop check: an increment is not the whole register;
 * - publish calls `publishChanges` instead of `publish`: upserts and deletions only, and the
 *   new position stored in the same transaction, so the feed advances exactly when live data
 *   does and a failed run is fetched again next time.
 * Stage is unchanged: the adapter's own `parse` reads the changes file, one row per change.
 */
export interface IncrementalFeed {
  /** True when the input names the change feed rather than a full download. */
  accepts(input: string): boolean;
  fetchChanges(input: string, context: FetchChangesContext): Promise<FetchedChanges>;
  /** `position` is what `fetchChanges` returned (kept in the run ledger between the activities). */
  publishChanges(context: StagingContext, position: FetchedChanges['position']): Promise<MergeResult>;
}

export interface FetchChangesContext {
  db: pg.Pool;
  /** Where to write the changes; the stage reads this file with the adapter's `parse`. */
  file: string;
  signal: AbortSignal;
  /** Changes fetched so far, for the heartbeat. */
  onProgress(changes: number): void;
}

export interface FetchedChanges {
  /** Changes written to the file; 0 means nothing changed. */
  changes: number;
  /** Where the feed stands once these changes are applied (JSON); recorded in the run ledger. */
  position: Record<string, unknown>;
}
