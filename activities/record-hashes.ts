import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { inTransaction, quoteIdent, withTransaction } from '../lib/db.js';
import { CopyWriter } from '../lib/copy-writer.js';
import { encodeCell } from '../lib/copy-text.js';
import { lastPublishedRun } from '../lib/run-ledger.js';
import { openInput, type OpenedInput } from '../sources/formats/open-input.js';
import { blankLinesExcept, hashLineRecords, LineSet, type HashedLine, type RecordLayout } from '../sources/formats/line-records.js';
import { hashFeatureRecords, keepFeatures } from '../sources/formats/gml-feature-records.js';
import { hashGeoPackageRows } from '../sources/formats/geopackage-records.js';
import type { GeoPackageFile } from '../sources/formats/geopackage-input.js';
import { memberPosition, readBundle } from '../sources/formats/bundle.js';
import type { ChangeCounts, GroupKey, LineLayout, PublishScope, SourceAdapter } from '../sources/source-adapter.js';
import type { LineRecords } from './types.js';
import { recordChangesTableName, recordsTableName, stagingLost } from './staging-table.js';
import { openRecordSpool, type ChangedRecordSpool } from './record-spool.js';
import { throwIfCancelled } from './heartbeat.js';
import { eventLoopTurns } from '../lib/event-loop-turns.js';
import { sourceRecordTable } from './source-record-table.js';
import { withHashJoins, withHashJoinsOnly } from '../sources/publish/merge-table.js';
import { withPlannerMethodsOff } from '../sources/publish/planner-methods.js';
import { stepTimer, type StepTimer } from '../sources/publish/step-timer.js';

/**
 * Record hashes for the sources whose records are lines (SourceAdapter.lineRecords), GML
 * features (SourceAdapter.featureRecords) or GeoPackage rows (SourceAdapter.geoPackageRecords);
 * a feature's number or a row's fid stands for its line. A night's file differs from the last
 * one in a few percent of its lines, but parsing it whole was most of the night (issue 19,
 * docs/scaling.md). So the stage first hashes every line (a byte scan, no
 * parse) into the run's records table, compares the hashes with `source_record` (the lines
 * the live rows were published from), and parses only the lines that are new. The publish then
 * upserts what was staged, removes the keys whose line is gone, and records the file's hashes,
 * all in its transaction.
 *
 * A national run only: a regional extract, a forced run, or a `source_record` that does not
 * describe live (its count differs from the live rows', e.g. after rows were deleted by hand)
 * stages the whole file, and the publish writes `source_record` afresh from it.
 */

/** The source's record group, when several of its records make live rows together (SourceAdapter's RecordGroup, bundleRecords). */
const recordGroupOf = (source: SourceAdapter): GroupKey | undefined => source.geoPackageRecords?.group ?? source.bundleRecords?.group;

/**
 * The staging column naming a source's record groups where each group is one live row
 * (se-building: its parts dissolve into one building); undefined where a staged row is a live row.
 * Validate then counts a snapshot's rows in groups.
 */
export function liveRowGroupColumn(source: SourceAdapter): string | undefined {
  const group = recordGroupOf(source);
  return group && !group.countLive ? group.staged : undefined;
}

/** Whether the source's records can be hashed one by one, so a night parses only the changed ones. */
export const hasRecordHashes = (source: SourceAdapter): boolean =>
  Boolean(source.lineRecords || source.featureRecords || source.geoPackageRecords || source.bundleRecords);

/** The layout of a line-record source's data file, by its name; none where its records are not its lines. */
function lineLayoutOf(source: SourceAdapter, fileName: string): LineLayout | undefined {
  return typeof source.lineRecords === 'function' ? source.lineRecords(fileName) : source.lineRecords;
}

async function* noRecords(): AsyncGenerator<HashedLine[]> {}

/**
 * Every data member's line records, at their bundle-wide positions, each hash covering the
 * context members before it; a member of no known layout, or a context member after a data
 * member, stops it (staged whole).
 */
async function* hashBundleRecords(source: SourceAdapter, input: OpenedInput, scratchDir: string, layout: RecordLayout): AsyncGenerator<HashedLine[]> {
  const spec = source.bundleRecords!;
  const context = createHash('sha1');
  let salt: Buffer | undefined;
  let dataSeen = false;
  const stop = () => {
    layout.regular = false;
    input.stream.destroy();
  };
  for await (const member of readBundle(input.stream, input.fileName, { dataFile: spec.dataFile, scratchDir })) {
    if (spec.context?.(member.name)) {
      if (dataSeen) return stop();
      context.update(`${member.name}\n`);
      for await (const chunk of member.stream) context.update(chunk as Buffer);
      salt = context.copy().digest();
      continue;
    }
    const records = spec.member(member.name);
    if (!records) return stop();
    dataSeen = true;
    for await (const lines of hashLineRecords(member.stream, { ...records, label: member.name, ...(salt ? { salt } : {}) }, layout)) {
      yield lines.map((line) => ({ ...line, number: memberPosition(member, line.number) }));
    }
  }
}

/**
 * A data file the hash pass extracted from the artifact (a zipped GeoPackage), left for the
 * parse to read in place of the artifact; whoever reads it last removes it.
 */
export interface ExtractedDataFile {
  path: string;
  /** The data file's own name (the zip entry's), which parsers read meaning from (se-building: the municipality). */
  fileName: string;
  remove(): Promise<void>;
}

interface HashPassFiles {
  spool?: ChangedRecordSpool;
  extracted?: ExtractedDataFile;
}

/** `layout.regular` is cleared when the records cannot be parsed apart (see each format). */
function hashRecords(source: SourceAdapter, input: OpenedInput, artifactPath: string, scratchDir: string, layout: RecordLayout, files: HashPassFiles): AsyncGenerator<HashedLine[]> {
  const spool = files.spool;
  if (source.bundleRecords) return hashBundleRecords(source, input, scratchDir, layout);
  if (source.lineRecords) {
    const lines = lineLayoutOf(source, input.fileName);
    if (lines) return hashLineRecords(input.stream, { ...lines, label: input.fileName, ...(spool ? { spool } : {}) }, layout);
    input.stream.destroy();
    layout.regular = false;
    return noRecords();
  }
  if (source.featureRecords) return hashFeatureRecords(input.stream, { ...source.featureRecords, ...(spool ? { spool } : {}) }, layout);
  const keepFile = (file: GeoPackageFile) => {
    if (file.path !== artifactPath) files.extracted = { path: file.path, fileName: input.fileName, remove: file.cleanup };
  };
  return hashGeoPackageRows(input.stream, { fileName: input.fileName, artifactPath, scratchDir }, source.geoPackageRecords!, layout, { keepFile });
}

/** Whether a night's hashing pass writes the changed records aside (activities/record-spool.ts): GML features, and lines outside a bundle. */
const spoolsRecords = (source: SourceAdapter, fileName: string): boolean =>
  Boolean(source.featureRecords || (!source.bundleRecords && source.lineRecords && lineLayoutOf(source, fileName)));

/**
 * The changed records as the parser reads them from the spool the hashing pass wrote
 * (`changedFile`). A line spool keeps every line's number (the unchanged ones are empty); the
 * parser numbers a GML spool's features 1, 2, …, mapped back to their numbers in the file.
 */
export function spooledRecordsOnly(source: SourceAdapter, spool: OpenedInput, changed: LineSet): ReturnType<typeof changedRecordsOnly> {
  return source.featureRecords ? { stream: spool.stream, filePosition: changed.nthInOrder() } : { stream: spool.stream };
}

/**
 * The artifact as the parser reads it on an increment: only the changed records, and how a
 * position the parser gives maps back to the record's number in the file. Lines keep their
 * numbers (the others are blanked); the kept features are numbered 1, 2, … by the parser; a
 * GeoPackage's reader skips the unchanged rows by fid.
 */
export function changedRecordsOnly(
  source: SourceAdapter,
  input: OpenedInput,
  changed: LineSet,
): { stream: Readable; filePosition?: (position: number) => number; keepPosition?: (position: number) => boolean } {
  if (source.geoPackageRecords || source.bundleRecords) return { stream: input.stream, keepPosition: (position) => changed.has(position) };
  const lines = source.lineRecords && lineLayoutOf(source, input.fileName);
  if (lines) return { stream: Readable.from(blankLinesExcept(input.stream, { header: lines.header, keep: (line) => changed.has(line), label: input.fileName })) };
  if (source.lineRecords) throw new Error(`${source.id}: ${input.fileName} has no line records, and cannot be read as an increment`);
  return {
    stream: Readable.from(keepFeatures(input.stream, { element: source.featureRecords!.element, keep: (number) => changed.has(number) })),
    filePosition: changed.nthInOrder(),
  };
}

/**
 * Whether the source's published records (`table`: its `source_record` partition, see
 * sourceRecordTable) describe live; when they do, also the live rows as `source.countLive` counts
 * them over the country (`liveRows`), which validate would otherwise count again
 * (no-land-registry's count of its blad took 1.5 s each time in a night at 0.25 x national, on a
 * machine a test suite shared).
 */
async function publishedRecordsDescribeLive(client: pg.PoolClient, source: SourceAdapter, stagingTable: string, table: string): Promise<{ describe: boolean; liveRows?: number }> {
  // Grouped records are recorded one per record and make one live row per group. Counted over a
  // DISTINCT subquery, which PostgreSQL hashes: count(DISTINCT) sorts, 11.5 s against 4.9 to 7.3 s
  // over 8 M synthetic parts of 7.5 M buildings (a national Byggnad file) at the installed work_mem.
  const group = recordGroupOf(source);
  const records = group ? `(SELECT DISTINCT record_key FROM ${table} WHERE source_id = $1) AS grouped` : `${table} WHERE source_id = $1`;
  const published = await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${records}`, [source.id]);
  if (published.rows[0].n === 0) return { describe: false };
  const countRows = () => source.countLive(client, { country: source.country, municipalities: null }, stagingTable);
  const live = group?.countLive ? await group.countLive(client) : await countRows();
  // Where groups were counted, the rows too: the counts run beside the hash pass (describeLiveBeside), validate after it.
  if (live === published.rows[0].n) return { describe: true, liveRows: group?.countLive ? await countRows() : live };
  console.warn(`nordprop: ${source.id}: ${published.rows[0].n} published line records against ${live} live rows; staging the whole file`);
  return { describe: false };
}

/**
 * Hashes every record line of the artifact into the run's records table. With `incremental`
 * (a national, unforced run) and published records that describe live, also returns the lines
 * to parse: those whose hash was not published, and for GML features and plain lines, those
 * records already written to a file of their own (`changedFile`, activities/record-spool.ts). A zipped
 * GeoPackage comes back extracted (`extractedFile`). Both are written in `scratchDir`
 * (activities/stage-scratch.ts); the caller removes them.
 */
export async function hashArtifactRecords(
  client: pg.PoolClient,
  request: HashRequest,
): Promise<{ records: LineRecords; changedLines?: LineSet; changedFile?: ChangedRecordSpool; extractedFile?: ExtractedDataFile }> {
  const files: HashPassFiles = {};
  try {
    const hashed = await hashAndCompare(client, request, files);
    const extracted = files.extracted ? { extractedFile: files.extracted } : {};
    if (hashed.changedLines && files.spool?.finish(hashed.changedLines)) return { ...hashed, changedFile: files.spool, ...extracted };
    await files.spool?.remove();
    return { ...hashed, ...extracted };
  } catch (error) {
    await files.spool?.remove();
    await files.extracted?.remove();
    throw error;
  }
}

interface HashRequest {
  /** Where the describes-live counts get a connection of their own (describeLiveBeside). */
  pool: pg.Pool;
  source: SourceAdapter;
  runId: string;
  artifactPath: string;
  stagingTable: string;
  incremental: boolean;
  scratchDir: string;
  /**
   * Times the published hashes' read for the spool (`published_hashes`), the pass over the file
   * (`hash_pass`), the wait after it for the describes-live counts (`describes_live`) and the
   * comparison with the published records (`compare`), for the ledger.
   */
  timer?: StepTimer;
}

async function hashAndCompare(client: pg.PoolClient, request: HashRequest, files: HashPassFiles): Promise<{ records: LineRecords; changedLines?: LineSet }> {
  const { source, runId } = request;
  const timer = request.timer ?? stepTimer();
  const table = recordsTableName(source.id, runId);
  // A stage again (a retry, or whole after a lost increment) starts without the last attempt's comparison.
  await client.query(`DROP TABLE IF EXISTS ${table}, ${recordChangesTableName(source.id, runId)}`);
  const group = recordGroupOf(source);
  await client.query(`CREATE UNLOGGED TABLE ${table} (line bigint NOT NULL, record_hash uuid NOT NULL${group ? ', record_group text' : ''})`);
  const layout: RecordLayout = { regular: true };
  const describing = request.incremental ? describeLiveBeside(request.pool, source, request.stagingTable) : undefined;
  // Awaited only when the pass succeeds: a failed pass must not leave its rejection unhandled.
  describing?.catch(() => undefined);
  const input = await openInput(request.artifactPath, source.zipEntry);
  if (request.incremental && spoolsRecords(source, input.fileName)) {
    files.spool = await timer.timed('published_hashes', () => openRecordSpool(client, source.id, input.fileName, request.scratchDir));
  }
  const total = await timer.timed('hash_pass', async () => {
    const copy = new CopyWriter(client, table);
    let hashed = 0;
    const turn = eventLoopTurns();
    for await (const lines of hashRecords(source, input, request.artifactPath, request.scratchDir, layout, files)) {
      throwIfCancelled();
      await turn();
      for (const line of lines) copy.add(`${line.number}\t${line.hash}${group ? `\t${encodeCell(line.group ?? null)}` : ''}\n`);
      hashed += lines.length;
      await copy.flush();
    }
    await copy.end();
    await client.query(`ANALYZE ${table}`);
    return hashed;
  });
  if (!layout.regular) console.warn(`nordprop: ${source.id}: its records cannot be read apart (see the source's page); staging the whole file`);
  const beside = describing && layout.regular ? await timer.timed('describes_live', () => describing) : undefined;
  if (!beside?.described.describe) return { records: { table, total, unchanged: 0, increment: false } };
  return timer.timed('compare', () => compareWithPublished(client, request, { table, total, group, published: beside.published, liveRows: beside.described.liveRows }));
}

/**
 * Whether the published records describe live, counted on a connection of its own while the
 * hash pass reads the file: the counts read every published record and live row and need
 * nothing from the file (at 0.25 × national they took 3.4 s of se-business's 7.2 s comparison,
 * after a 5.5 s pass, and 1.35 s of no-matrikkel-detail's 3.5 s). Also the source's partition
 * of `source_record`, which the comparison reads.
 */
async function describeLiveBeside(pool: pg.Pool, source: SourceAdapter, stagingTable: string): Promise<{ published: string; described: { describe: boolean; liveRows?: number } }> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    const published = await sourceRecordTable(client, source.id);
    return { published, described: await publishedRecordsDescribeLive(client, source, stagingTable, published) };
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    client.release(failure);
  }
}

/** The hashed records (`hashed.table`) against those `source_record` holds: what a night parses, and what its publish adds and removes. */
async function compareWithPublished(
  client: pg.PoolClient,
  request: HashRequest,
  hashed: { table: string; total: number; group: GroupKey | undefined; published: string; liveRows: number | undefined },
): Promise<{ records: LineRecords; changedLines?: LineSet }> {
  const { source, runId } = request;
  const { table, total, group, published, liveRows } = hashed;
  const basedOn = await lastPublishedRun(client, source.id);
  const changedLines = new LineSet();
  const changes = recordChangesTableName(source.id, runId);
  await client.query(`DROP TABLE IF EXISTS pg_temp.changed_line, pg_temp.touched_line`);
  // One hash full join of the file's records with the published ones (a probe per line took
  // 1.7 s for 389,003): the lines that are new, and the published records the file no longer
  // holds. Kept for the publish (LineRecords.changes), which otherwise compares both sides again,
  // three times: to find its removed keys, the records to drop and those to add (0.5-0.7 s of a
  // 1.3-1.7 s se-building or se-business night's publish at 0.05 x national).
  // Hash joins only, in a transaction of its own (the setting is the transaction's): from the
  // partition's statistics the planner expects next to no new record, and a nested loop over the
  // records for each would be quadratic in the lines a night changed (as the publish's insert of
  // the new records was, 6.6 s instead of 0.5 s, when it read the partition: it reads
  // `source_record`, see activities/source-record-table.ts).
  const compared = await inTransaction(client, () => withHashJoinsOnly(client, () => client.query(
    `CREATE UNLOGGED TABLE ${changes} AS
     SELECT r.line, ${group ? 'r.record_group' : 'NULL::text AS record_group'}, p.record_key, coalesce(r.record_hash, p.record_hash) AS record_hash, p.record_ctid
     FROM ${table} r FULL JOIN (SELECT ctid AS record_ctid, record_key, record_hash FROM ${published} WHERE source_id = $1) p ON p.record_hash = r.record_hash
     WHERE r.line IS NULL OR p.record_hash IS NULL`,
    [source.id],
  )));
  const changeRows = compared.rowCount ?? 0;
  await client.query(`ANALYZE ${changes}`);
  let unchangedRows: number | undefined;
  if (group) {
    // Every record of a group that has a new record or lost one: the publish rebuilds the group's row from all of them.
    await inTransaction(client, () => withHashJoins(client, () => client.query(
      `CREATE TEMP TABLE touched_line AS
       WITH touched AS (
         SELECT record_group FROM ${changes} WHERE line IS NOT NULL AND record_group IS NOT NULL
         UNION
         SELECT record_key FROM ${changes} WHERE line IS NULL
       )
       SELECT r.line, r.record_group FROM ${table} r JOIN touched t ON t.record_group = r.record_group`,
    )));
    await client.query(
      `CREATE TEMP TABLE changed_line AS
       SELECT line FROM ${changes} WHERE line IS NOT NULL UNION SELECT line FROM pg_temp.touched_line`,
    );
    if (liveRows !== undefined && !group.countLive) {
      // Where a group is a live row, the rows the night keeps are the live groups it does not
      // touch. A touched group is live if it lost a record, or if the file holds one of its
      // published records still (a line of it that is not new): a group with new lines only is new.
      const touchedLive = await client.query<{ n: number }>(
        `SELECT count(*)::bigint AS n FROM (
           SELECT record_key FROM ${changes} WHERE line IS NULL
           UNION
           SELECT t.record_group FROM pg_temp.touched_line t WHERE NOT EXISTS (SELECT 1 FROM ${changes} c WHERE c.line = t.line)
         ) live_group`,
      );
      unchangedRows = liveRows - touchedLive.rows[0].n;
    }
    await client.query(`DROP TABLE pg_temp.touched_line`);
  } else {
    await client.query(`CREATE TEMP TABLE changed_line AS SELECT line FROM ${changes} WHERE line IS NOT NULL`);
  }
  await client.query(`CREATE INDEX ON pg_temp.changed_line (line)`);
  // Read in pages: a file that changed throughout costs no more memory than the bit set.
  let unchanged = total;
  for (let after = 0; ; ) {
    const page = await client.query<{ line: number }>(`SELECT line FROM pg_temp.changed_line WHERE line > $1 ORDER BY line LIMIT 100000`, [after]);
    if (page.rows.length === 0) break;
    for (const { line } of page.rows) changedLines.add(Number(line));
    unchanged -= page.rows.length;
    after = Number(page.rows[page.rows.length - 1].line);
  }
  await client.query(`DROP TABLE pg_temp.changed_line`);
  return {
    records: {
      table, total, unchanged, increment: true,
      ...(unchangedRows !== undefined ? { unchangedRows } : {}),
      ...(basedOn ? { basedOn } : {}),
      ...(liveRows !== undefined ? { liveRows } : {}),
      changes: { table: changes, rows: changeRows, publishedTable: published },
    },
    changedLines,
  };
}

/** A staging table's rows, or null when it is gone. */
async function countIfPresent(client: pg.PoolClient, table: string): Promise<number | null> {
  const present = await client.query<{ n: number | null }>(`SELECT CASE WHEN to_regclass($1) IS NOT NULL THEN 0 END AS n`, [table]);
  return present.rows[0].n === null ? null : (await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${table}`)).rows[0].n;
}

/**
 * Publish, first: the records table still holds every line hashed, and an increment's record
 * changes every change the stage found. Crash recovery empties UNLOGGED tables: an increment
 * merged against an emptied records table would remove every live row, and against emptied
 * changes would keep the rows the file no longer has.
 */
export async function assertRecordsIntact(client: pg.PoolClient, records: LineRecords): Promise<void> {
  const found = await countIfPresent(client, records.table);
  if (found !== records.total) {
    throw stagingLost(`line hashes ${records.table} ${found === null ? 'are gone' : `hold ${found} lines`} where ${records.total} were hashed (a database restart empties staging tables); live data was not touched`);
  }
  if (!records.changes) return;
  const changes = await countIfPresent(client, records.changes.table);
  if (changes !== records.changes.rows) {
    throw stagingLost(`record changes ${records.changes.table} ${changes === null ? 'are gone' : `hold ${changes} rows`} where the stage found ${records.changes.rows} (a database restart empties staging tables); live data was not touched`);
  }
}

/**
 * Publish, under the source's publish lock: an increment staged the lines whose hash the
 * published records lacked then. When another run of the source has published since (a
 * backfill during the night, concurrent runs), the increment still holds when every line it
 * took as unchanged is still published; otherwise it would leave those lines out, and the
 * source is staged again.
 *
 * Returns the stage's record changes (LineRecords.changes) when they still compare the file with
 * what is published (no run published since); undefined when the publish must compare again.
 */
export async function assertIncrementBase(
  client: pg.PoolClient,
  request: { sourceId: string; runId: string; stagingTable: string; records: LineRecords },
): Promise<string | undefined> {
  const { sourceId, runId, stagingTable, records } = request;
  if (!records.increment) return undefined;
  const latest = await lastPublishedRun(client, sourceId);
  if (latest === records.basedOn) return records.changes?.table;
  // The lines this run parsed are its staged rows and its rejects; every other line was unchanged.
  const missing = await client.query<{ n: number }>(
    `SELECT count(*)::bigint AS n FROM ${records.table} r
     WHERE NOT EXISTS (SELECT 1 FROM source_record p WHERE p.source_id = $1 AND p.record_hash = r.record_hash)
       AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.src_pos = r.line)
       AND NOT EXISTS (SELECT 1 FROM source_reject j WHERE j.run_id = $2 AND j.source_id = $1 AND j.position = r.line)`,
    [sourceId, runId],
  );
  if (missing.rows[0].n === 0) return undefined;
  throw stagingLost(`run ${latest} published ${sourceId} after this run staged its changed lines against run ${records.basedOn}, and changed ${missing.rows[0].n} of the lines this run took as unchanged; staging again`);
}

/** The staged columns that name a record in `source_record`: its record group's, or else the source's key columns. */
const recordKeyColumns = (source: SourceAdapter): string[] => {
  const group = recordGroupOf(source);
  return group ? [group.staged] : source.keyColumns;
};

/** A row's key as `source_record.record_key` holds it: its record key columns as text (joined by U+001F when there are several). */
function recordKeySql(source: SourceAdapter, alias: string): string {
  const parts = recordKeyColumns(source).map((column) => `${alias}.${quoteIdent(column)}::text`);
  return parts.length === 1 ? parts[0] : `concat_ws(E'\\x1f', ${parts.join(', ')})`;
}

/** The `raw` of a reject of an unchanged line: the line was not read again (its hash matched). */
const UNCHANGED_LINE_RAW = '(a line unchanged since the last publish, not read again)';

/**
 * Validate, on an increment: a staged row whose key an unchanged line holds is a duplicate, and
 * the one that comes later in the file is quarantined, as the full stage's duplicate check
 * (activities/validate.ts) would do. When the staged row comes first, it replaces the live row
 * and the unchanged line is the reject (its record is dropped from `source_record` at publish,
 * recordPublishedLines), so a night leaves live as a full load of the same file would.
 */
export async function quarantineDuplicatesOfUnchanged(
  pool: pg.Pool,
  source: SourceAdapter,
  stagingTable: string,
  records: LineRecords,
  runId: string,
): Promise<{ rejected: number; unchangedRejected: number }> {
  if (!records.increment) return { rejected: 0, unchangedRejected: 0 };
  // Hash joins only: the planner cannot estimate the join on a composite key's text and sorted every
  // published record by key for a merge join instead (0.7 s at 389,003; 0.1 s hashed).
  return withTransaction(pool, (client) => withHashJoinsOnly(client, async () => {
    // First the staged rows whose key a published record holds that the file still has: only
    // those can meet an unchanged line, not a record the stage's comparison found gone
    // (`changes`, its rows without a line). Usually none is left, and then the file's records are
    // not read at all. The key join runs first, materialized: else the planner probed the gone
    // records with every published one (2 M for se-business, 1.1 s). The rows are kept in a table
    // with statistics: estimated from the join on the key's text, a few thousand looked like
    // millions, and the join with the file's records hashed every record instead (0.44 s of
    // no-address's 0.76 s statement at 0.25 x national, 1.27 s of se-business's 2.05 s).
    const held = await client.query(
      `CREATE TEMP TABLE held_key ON COMMIT DROP AS
       WITH held AS MATERIALIZED (
         SELECT st.src_pos, p.record_key, p.record_hash FROM ${stagingTable} st
         JOIN source_record p ON p.source_id = $1 AND p.record_key = ${recordKeySql(source, 'st')}
       )
       SELECT * FROM held
       ${records.changes ? `WHERE NOT EXISTS (SELECT 1 FROM ${records.changes.table} gone WHERE gone.line IS NULL AND gone.record_hash = held.record_hash)` : ''}`,
      [source.id],
    );
    if (!held.rowCount) return { rejected: 0, unchangedRejected: 0 };
    await client.query('ANALYZE pg_temp.held_key');
    const result = await client.query(
      `WITH duplicate AS MATERIALIZED (
         SELECT held.src_pos, held.record_key, r.line FROM pg_temp.held_key held JOIN ${records.table} r ON r.record_hash = held.record_hash
         -- a line staged itself is no unchanged line (a record group's unchanged records are staged with it)
         WHERE NOT EXISTS (SELECT 1 FROM ${stagingTable} again WHERE again.src_pos = r.line)
       ),
       -- The staged row loses to an unchanged line before it; else the unchanged lines (all after it) lose.
       verdict AS MATERIALIZED (
         SELECT src_pos, record_key, min(line) AS first_unchanged, min(line) < src_pos AS staged_loses FROM duplicate GROUP BY src_pos, record_key
       ),
       removed AS (
         DELETE FROM ${stagingTable} st USING verdict v WHERE st.src_pos = v.src_pos AND v.staged_loses
         RETURNING st.src_pos AS position, v.first_unchanged AS first, true AS first_unchanged, v.record_key, left(st::text, 2000) AS raw
       ),
       unchanged_losing AS (
         SELECT d.line AS position, d.src_pos AS first, false AS first_unchanged, d.record_key, $3::text AS raw
         FROM duplicate d JOIN verdict v USING (src_pos) WHERE NOT v.staged_loses
       )
       INSERT INTO source_reject (run_id, source_id, position, reason, raw)
       SELECT $1, $2, position, 'duplicate key ${source.keyColumns.join(',')}=' || replace(record_key, E'\\x1f', ',')
                                || CASE WHEN first_unchanged THEN ' (unchanged at position ' ELSE ' (first at position ' END || first || ')', raw
       FROM (SELECT * FROM removed UNION ALL SELECT * FROM unchanged_losing) rejected
       RETURNING raw = $3 AS unchanged`,
      [runId, source.id, UNCHANGED_LINE_RAW],
    );
    return { rejected: result.rowCount ?? 0, unchangedRejected: result.rows.filter((row) => row.unchanged).length };
  }));
}

/**
 * The published records the file no longer holds: from `changes` (the stage's comparison, when
 * assertIncrementBase found it current), else by an anti-join of the published records with the
 * file's ($1: the source).
 */
const goneRecordsSql = (records: LineRecords, changes: string | undefined) => changes
  ? `(SELECT record_key, record_hash FROM ${changes} WHERE line IS NULL)`
  : `(SELECT p.record_key, p.record_hash FROM source_record p
      WHERE p.source_id = $1 AND NOT EXISTS (SELECT 1 FROM ${records.table} r WHERE r.record_hash = p.record_hash))`;

/**
 * Publish, on an increment, before the merge: the keys whose published line is gone from the
 * file and that staging does not write again, into the temporary table it returns (its columns
 * are its record key columns, as staged: the key columns or the record group's).
 */
export async function collectRemovedKeys(
  client: pg.PoolClient,
  source: SourceAdapter,
  stagingTable: string,
  records: LineRecords,
  changes: string | undefined,
): Promise<string> {
  const typeOf = (name: string) => source.stagingColumns.find((column) => column.name === name)!.type;
  const columns = recordKeyColumns(source);
  const keys = columns.map((name, i) =>
    `${columns.length === 1 ? 'g.record_key' : `split_part(g.record_key, E'\\x1f', ${i + 1})`}::${typeOf(name)} AS ${quoteIdent(name)}`);
  await client.query(`DROP TABLE IF EXISTS removed_record_key`);
  // DISTINCT: the records of a group share its key. Hash joins: the staged rows have no index on their key.
  await withHashJoins(client, () => client.query(
    `CREATE TEMP TABLE removed_record_key ON COMMIT DROP AS
     SELECT DISTINCT ${keys.join(', ')} FROM ${goneRecordsSql(records, changes)} g
     WHERE NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE ${recordKeySql(source, 's')} = g.record_key)`,
    changes ? [] : [source.id],
  ));
  return 'pg_temp.removed_record_key';
}

/**
 * An increment's published records that its file no longer holds, deleted where the stage's
 * comparison found them (`record_ctid`), by a TID scan: found by hash, the delete read the
 * source's whole partition (888,931 records, 0.53 s, to delete 16,086 for se-cadastre's night at
 * 0.25 × national), every night in proportion to the register rather than to the night. The
 * places still hold those records: the publish takes these changes only when no run of the source
 * has published since the comparison (assertIncrementBase), and only a source's publish writes
 * its records. The hash is compared too, so a row moved since (VACUUM FULL, CLUSTER) is missed
 * rather than another deleted; the next night then finds the records no longer describing live
 * and stages the file whole. Sequential scans off: on a small partition the planner would read it whole.
 */
async function deleteGoneRecords(client: pg.PoolClient, sourceId: string, changes: string, publishedTable: string | undefined): Promise<pg.QueryResult> {
  if (!publishedTable) {
    // A stage made before the changes kept places: by hash. Hash joins: a nested loop would
    // read the (unindexed) partition once per gone record.
    return withHashJoins(client, () => client.query(
      `DELETE FROM source_record p USING ${changes} c WHERE p.source_id = $1 AND c.line IS NULL AND p.record_hash = c.record_hash`,
      [sourceId],
    ));
  }
  return withPlannerMethodsOff(client, ['seqscan'], () => client.query(
    `DELETE FROM ${publishedTable} p USING ${changes} c
     WHERE p.ctid = ANY (ARRAY(SELECT record_ctid FROM ${changes} WHERE line IS NULL))
       AND p.ctid = c.record_ctid AND c.line IS NULL AND p.source_id = $1 AND p.record_hash = c.record_hash`,
    [sourceId],
  ));
}

/**
 * Publish, after the merge: `source_record` made to describe what live now holds. After an
 * increment, the lines gone from the file are dropped and the staged ones added; after a full
 * national stage, it is the staged rows' lines; after a regional extract it is emptied (live
 * then mixes files, and the next national run stages its whole file). Returns the rows it
 * changed under the source's partition, for the publish's statistics refresh
 * (activities/stale-statistics.ts): a night's joins over the records are planned from that
 * partition's statistics, and never analyzed, the planner took a merge join that sorted them all.
 */
export async function recordPublishedLines(
  client: pg.PoolClient,
  request: { source: SourceAdapter; runId: string; stagingTable: string; records: LineRecords; scope: PublishScope; changes: string | undefined },
): Promise<Record<string, ChangeCounts>> {
  const { source, runId, stagingTable, records, scope, changes } = request;
  const removed = scope.municipalities || !records.increment
    ? await client.query(`DELETE FROM source_record WHERE source_id = $1`, [source.id])
    // Lines gone or changed, and unchanged lines this run rejected (a staged row before them took
    // their key: quarantineDuplicatesOfUnchanged). A key staged again had its old line among the
    // changed ones: validation quarantined the staged rows whose key an unchanged line before them holds.
    : changes
      ? await deleteGoneRecords(client, source.id, changes, records.changes?.publishedTable)
      : await client.query(
        `DELETE FROM source_record p WHERE p.source_id = $1 AND NOT EXISTS (SELECT 1 FROM ${records.table} r WHERE r.record_hash = p.record_hash)`,
        [source.id],
      );
  // A statement of its own: OR-ed into the anti-join above, it would make that a probe per record.
  // Joined from the run's rejects of unchanged lines (usually none: the records are then not read).
  const rejectedUnchanged = scope.municipalities || !records.increment
    ? undefined
    : await client.query(
      `DELETE FROM source_record p
       USING (SELECT r.record_hash FROM source_reject j JOIN ${records.table} r ON r.line = j.position
              WHERE j.run_id = $2 AND j.source_id = $1 AND j.raw = $3) lost
       WHERE p.source_id = $1 AND p.record_hash = lost.record_hash`,
      [source.id, runId, UNCHANGED_LINE_RAW],
    );
  const added = scope.municipalities
    ? undefined
    : changes
      // The staged lines that are new (a record group's unchanged records are staged with them, and recorded already).
      ? await withHashJoins(client, () => client.query(
        `INSERT INTO source_record (source_id, record_key, record_hash)
         SELECT $1, ${recordKeySql(source, 's')}, c.record_hash FROM ${stagingTable} s JOIN ${changes} c ON c.line = s.src_pos`,
        [source.id],
      ))
      : await client.query(
        `INSERT INTO source_record (source_id, record_key, record_hash)
         SELECT $1, ${recordKeySql(source, 's')}, r.record_hash FROM ${stagingTable} s JOIN ${records.table} r ON r.line = s.src_pos
         -- already there when another run published the same line after this one was staged
         WHERE NOT EXISTS (SELECT 1 FROM source_record p WHERE p.source_id = $1 AND p.record_hash = r.record_hash)`,
        [source.id],
      );
  const partition = await client.query<{ name: string }>(`SELECT tableoid::regclass::text AS name FROM source_record WHERE source_id = $1 LIMIT 1`, [source.id]);
  if (!partition.rows[0]) return {}; // nothing recorded: no statistics to keep
  return { [partition.rows[0].name]: { inserted: added?.rowCount ?? 0, updated: 0, deleted: (removed.rowCount ?? 0) + (rejectedUnchanged?.rowCount ?? 0) } };
}
