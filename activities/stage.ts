import { hash } from 'node:crypto';
import type pg from 'pg';
import { Context } from '@temporalio/activity';
import { loadConfig } from '../lib/config.js';
import { getPool } from '../lib/db.js';
import { encodeCells } from '../lib/copy-text.js';
import { CopyWriter } from '../lib/copy-writer.js';
import { getSource } from '../sources/registry.js';
import { openInput } from '../sources/formats/open-input.js';
import type { SourceAdapter } from '../sources/source-adapter.js';
import { recordDuration } from './ledger.js';
import { throttledHeartbeat } from './heartbeat.js';
import { createStagingSql, stagingColumnList, stagingTableName } from './staging-table.js';
import type { ProgressDetails, StagedSnapshot } from './types.js';

const REJECT_BATCH = 500;

interface Reject {
  position: number;
  reason: string;
  raw: string;
}

async function insertRejects(client: pg.PoolClient, runId: string, sourceId: string, rejects: Reject[]): Promise<void> {
  if (!rejects.length) return;
  await client.query(
    `INSERT INTO source_reject (run_id, source_id, position, reason, raw)
     SELECT $1, $2, * FROM unnest($3::bigint[], $4::text[], $5::text[])`,
    [runId, sourceId, rejects.map((r) => r.position), rejects.map((r) => r.reason), rejects.map((r) => r.raw.slice(0, 2000))],
  );
}

/**
 * Resets the staging table for this attempt. A retried attempt keeps the chunks an earlier
 * attempt committed (its last heartbeat says up to which file position) and drops the rest.
 */
async function prepareStaging(client: pg.PoolClient, source: SourceAdapter, table: string, runId: string, committed: number): Promise<void> {
  await client.query(createStagingSql(source, table));
  await client.query(`DELETE FROM ${table} WHERE src_pos > $1`, [committed]);
  await client.query(`DELETE FROM source_reject WHERE run_id = $1 AND source_id = $2 AND position > $3`, [runId, source.id, committed]);
}

/** Stream parse → normalize → reproject → COPY, in committed chunks so a retry resumes. */
export async function stageArtifact(request: { runId: string; sourceId: string; artifactPath: string }): Promise<StagedSnapshot> {
  const started = performance.now();
  const { stageChunkRows } = loadConfig();
  const source = getSource(request.sourceId);
  const table = stagingTableName(source.id, request.runId);
  const columns = stagingColumnList(source);
  const resume = Context.current().info.heartbeatDetails as ProgressDetails | undefined;
  const committedPosition = resume?.committedPosition ?? 0;
  const beat = throttledHeartbeat();

  const client = await getPool().connect();
  // Rejects go over their own connection: the main one is busy with COPY.
  const rejectClient = await getPool().connect();
  let failure: Error | undefined;
  try {
    await prepareStaging(client, source, table, request.runId, committedPosition);
    const input = await openInput(request.artifactPath, source.zipEntry);
    let rows = 0;
    let rejected = 0;
    let chunkRows = 0;
    let lastPosition = committedPosition;
    let lastCommitted = committedPosition;
    let pendingRejects: Reject[] = [];
    let chunk: CopyWriter | undefined;
    const progress = (): ProgressDetails => ({
      phase: 'stage', bytes: input.bytesRead(), totalBytes: input.totalBytes, rows, rejected, committedPosition: lastCommitted,
    });
    const flushRejects = async () => {
      await insertRejects(rejectClient, request.runId, source.id, pendingRejects);
      pendingRejects = [];
    };
    // Rejects past the committed position are deleted again if the attempt is retried.
    const commitChunk = async () => {
      await chunk?.end();
      chunk = undefined;
      await flushRejects();
      chunkRows = 0;
      lastCommitted = lastPosition;
      beat(progress(), true);
    };

    for await (const records of source.parse(input.stream, { fileName: input.fileName, artifactPath: request.artifactPath })) {
      for (const record of records) {
        if (record.position <= committedPosition) continue;
        lastPosition = record.position;
        if (record.kind === 'reject') {
          rejected++;
          pendingRejects.push(record);
          continue;
        }
        const cells = encodeCells(record.values);
        chunk ??= new CopyWriter(client, `${table} (${columns})`);
        // The row hash only detects change between snapshots; SHA-1's first 128 bits fit a uuid.
        if (chunk.add(`${record.position}\t${cells}\t${hash('sha1', cells, 'hex').slice(0, 32)}\n`)) await chunk.flush();
        rows++;
        if (++chunkRows >= stageChunkRows) await commitChunk();
      }
      if (pendingRejects.length >= REJECT_BATCH) await flushRejects();
      beat(progress());
    }
    await commitChunk();

    const totals = await client.query<{ staged: number; rejected: number }>(
      `SELECT (SELECT count(*) FROM ${table}) AS staged,
              (SELECT count(*) FROM source_reject WHERE run_id = $1 AND source_id = $2 AND disposition = 'rejected') AS rejected`,
      [request.runId, source.id],
    );
    const { staged, rejected: rejectedTotal } = totals.rows[0];
    await recordDuration(request.runId, source.id, 'stage', performance.now() - started, {
      staging_table: table, rows_read: staged + rejectedTotal, rows_staged: staged, rows_rejected: rejectedTotal,
    }, client);
    return { stagingTable: table, rowsRead: staged + rejectedTotal, rowsStaged: staged, rowsRejected: rejectedTotal };
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection that failed mid-COPY is not fit for reuse: release(error) discards it.
    client.release(failure);
    rejectClient.release(failure);
  }
}
