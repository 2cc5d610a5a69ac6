import { loadConfig } from '../lib/config.js';
import { getPool, quoteIdent, withTransaction } from '../lib/db.js';
import { getSource } from '../sources/registry.js';
import type { SourceAdapter } from '../sources/source-adapter.js';
import { inputCoversCountry } from '../sources/input-scope.js';
import { liveRowGroupColumn, quarantineDuplicatesOfUnchanged } from './record-hashes.js';
import type { PublishScope } from '../lib/domain/publish-scope.js';
import { recordDuration } from './ledger.js';
import { withHeartbeat } from './heartbeat.js';
import { serverStartedAt, stagingFingerprint, stagingLost } from './staging-table.js';
import type { StagedSnapshot, ValidatedSnapshot } from './types.js';
import { rowDropFailure, rowDropFloor } from './row-drop.js';
import { validationFailure } from './validation-failure.js';

/**
 * Which live rows the snapshot replaces: the source's own rule (`scopeOf`) says whether an input
 * covers the country or only the municipalities it contains; its national download and its
 * change feed always cover the country.
 */
export async function snapshotScope(source: SourceAdapter, input: string, stagingTable: string): Promise<PublishScope> {
  if (inputCoversCountry(source, input)) return { country: source.country, municipalities: null };
  const result = await getPool().query<{ code: string }>(`SELECT DISTINCT municipality_code AS code FROM ${stagingTable} ORDER BY 1`);
  return { country: source.country, municipalities: result.rows.map((row) => row.code) };
}

/** Later duplicates of a key are quarantined; the first occurrence in the file stays. */
async function quarantineDuplicates(source: SourceAdapter, stagingTable: string, runId: string): Promise<number> {
  const key = source.keyColumns.map(quoteIdent);
  return withTransaction(getPool(), async (client) => {
    const result = await client.query(
      `WITH dup_keys AS (
         SELECT ${key.join(', ')}, min(src_pos) AS first_pos FROM ${stagingTable} GROUP BY ${key.join(', ')} HAVING count(*) > 1
       ),
       removed AS (
         DELETE FROM ${stagingTable} st USING dup_keys d
         WHERE ${key.map((k) => `st.${k} = d.${k}`).join(' AND ')} AND st.src_pos > d.first_pos
         RETURNING st.src_pos, d.first_pos, ${key.map((k) => `st.${k}::text`).join(` || ',' || `)} AS key_text, left(st::text, 2000) AS raw
       )
       INSERT INTO source_reject (run_id, source_id, position, reason, raw)
       SELECT $1, $2, src_pos, 'duplicate key ${source.keyColumns.join(',')}=' || key_text || ' (first at position ' || first_pos || ')', raw
       FROM removed`,
      [runId, source.id],
    );
    return result.rowCount ?? 0;
  });
}

type ValidateRequest = { runId: string; sourceId: string; input: string; staged: StagedSnapshot; force: boolean };

/** Validation's statements run long on a national register: heartbeats show the worker is alive. */
export async function validateStaged(request: ValidateRequest): Promise<ValidatedSnapshot> {
  return withHeartbeat(() => validate(request));
}

/**
 * A database restart since the stage may have emptied the UNLOGGED staging table (crash
 * recovery resets them): validating what is left would judge, and publish, a snapshot that was
 * never read. The workflow stages again.
 */
async function assertStagedOnThisServerStart(staged: StagedSnapshot): Promise<void> {
  const now = await serverStartedAt(getPool());
  const present = (await getPool().query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [staged.stagingTable])).rows[0].present;
  if (now === staged.serverStartedAt && present) return;
  throw stagingLost(`the database restarted after ${staged.stagingTable} was staged (at ${staged.serverStartedAt}, now ${now}); its rows may be lost, so the source is staged again`);
}

async function countLive(source: SourceAdapter, scope: PublishScope, stagingTable: string): Promise<number> {
  const client = await getPool().connect();
  return source.countLive(client, scope, stagingTable).finally(() => client.release());
}

/**
 * The rows live would hold after publishing the snapshot, in the units `countLive` counts: staged
 * rows and unchanged lines, or, where several records make one live row (se-building's parts and
 * buildings), the groups staged and the live groups left as they are. Counted in parts, a night
 * file that lost more than 10 % of the buildings passed on the multipart buildings' spare parts.
 */
async function countSnapshotRows(source: SourceAdapter, stagingTable: string, staged: number, unchangedLines: number, unchangedRows: number | undefined): Promise<number> {
  const groupColumn = liveRowGroupColumn(source);
  if (!groupColumn) return staged + unchangedLines;
  // Over a DISTINCT subquery, which PostgreSQL hashes (count(DISTINCT) sorts).
  const groups = await getPool().query<{ n: number }>(`SELECT count(*)::bigint AS n FROM (SELECT DISTINCT ${quoteIdent(groupColumn)} FROM ${stagingTable}) staged_group`);
  return groups.rows[0].n + (unchangedRows ?? unchangedLines);
}

async function validate(request: ValidateRequest): Promise<ValidatedSnapshot> {
  const started = performance.now();
  const config = loadConfig();
  const source = getSource(request.sourceId);
  const { stagingTable } = request.staged;
  const pool = getPool();

  await assertStagedOnThisServerStart(request.staged);
  await quarantineDuplicates(source, stagingTable, request.runId);
  const lineRecords = request.staged.lineRecords;
  const duplicatesOfUnchanged = lineRecords ? await quarantineDuplicatesOfUnchanged(pool, source, stagingTable, lineRecords, request.runId) : undefined;
  let rowsRepaired = 0;
  if (source.repairStaged) {
    const client = await pool.connect();
    try {
      rowsRepaired = (await source.repairStaged({ client, stagingTable, runId: request.runId, sourceId: source.id })).repaired;
    } finally {
      client.release();
    }
  }
  await pool.query(`ANALYZE ${stagingTable}`); // the publish joins want real row counts

  const counts = await pool.query<{ staged: number; rejected: number }>(
    `SELECT (SELECT count(*) FROM ${stagingTable}) AS staged,
            (SELECT count(*) FROM source_reject WHERE run_id = $1 AND source_id = $2 AND disposition = 'rejected') AS rejected`,
    [request.runId, source.id],
  );
  const { staged, rejected } = counts.rows[0];
  // An increment's unchanged lines stay live: they count as rows of the snapshot (but for those
  // rejected since: a changed line before them took their key).
  const unchanged = (lineRecords?.unchanged ?? 0) - (duplicatesOfUnchanged?.unchangedRejected ?? 0);
  const read = staged + rejected + unchanged;
  const scope = await snapshotScope(source, request.input, stagingTable);
  // An increment holds only what changed: there is no snapshot to compare with live.
  const increment = source.increment?.accepts(request.input) ?? false;
  // An increment's stage counted them over the country already, in its national scope.
  const liveRows = lineRecords?.liveRows ?? (await countLive(source, scope, stagingTable));
  await recordDuration(request.runId, source.id, 'validate', performance.now() - started, {
    rows_read: read, rows_staged: staged, rows_rejected: rejected, rows_repaired: rowsRepaired, ...(lineRecords ? { rows_unchanged: unchanged } : {}),
  });

  if (staged + unchanged === 0) throw validationFailure(`no rows could be staged from ${read} read`);
  const rejectRate = read ? rejected / read : 0;
  if (rejectRate > config.maxRejectRate) {
    throw validationFailure(
      `${rejected} of ${read} rows rejected (${(rejectRate * 100).toFixed(2)}%), above the ${(config.maxRejectRate * 100).toFixed(2)}% ceiling; see: nordprop runs show ${request.runId}`,
    );
  }
  const floor = rowDropFloor(liveRows);
  const checksRowDrop = !request.force && !increment && floor > 0;
  const snapshotRows = checksRowDrop ? await countSnapshotRows(source, stagingTable, staged, unchanged, lineRecords?.unchangedRows) : 0;
  if (checksRowDrop && snapshotRows < floor) throw rowDropFailure('snapshot has', snapshotRows, liveRows);
  // What the publish must find in staging, inside its transaction, to merge it.
  const fingerprint = await stagingFingerprint(pool, stagingTable);
  if (!fingerprint || fingerprint.rows !== staged) throw stagingLost(`${stagingTable} changed while it was validated (${fingerprint?.rows ?? 'no'} rows, ${staged} counted)`);
  return {
    ...request.staged, rowsRead: read, rowsStaged: staged, rowsRejected: rejected, rowsRepaired, liveRows, scope, fingerprint,
    ...(increment ? { increment } : {}),
    ...(checksRowDrop ? { rowDropFloor: floor } : {}),
  };
}
