import { hash } from 'node:crypto';
import type pg from 'pg';
import { Context } from '@temporalio/activity';
import { loadConfig } from '../lib/config.js';
import { getPool } from '../lib/db.js';
import { encodeCells } from '../lib/copy-text.js';
import { CopyWriter } from '../lib/copy-writer.js';
import { eventLoopTurns } from '../lib/event-loop-turns.js';
import { getSource } from '../sources/registry.js';
import { openInput, type OpenedInput } from '../sources/formats/open-input.js';
import { InputFormatError, readFailure } from '../sources/formats/input-error.js';
import { inputCoversCountry } from '../sources/input-scope.js';
import type { SourceAdapter } from '../sources/source-adapter.js';
import { recordDuration } from './ledger.js';
import { throwIfCancelled, withProgressHeartbeat, type ProgressBeats } from './heartbeat.js';
import { inStageSlot } from './stage-slots.js';
import { changedRecordsOnly, hashArtifactRecords, hasRecordHashes, spooledRecordsOnly } from './record-hashes.js';
import { openStageScratch, type StageScratch } from './stage-scratch.js';
import { stepTimer } from '../sources/publish/step-timer.js';
import { createStagingSql, serverStartedAt, stagingColumnList, stagingTableName } from './staging-table.js';
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
 * Resets the staging table for this attempt and says from which file position it reads. A
 * retried attempt keeps the chunks an earlier attempt committed (its last heartbeat says up to
 * which position, and how many rows they hold) and drops the rest; but only when the table still
 * holds exactly those rows on the same server start: crash recovery empties UNLOGGED tables, and
 * a stage that resumed past the lost rows published a mix. Otherwise it starts over.
 */
async function prepareStaging(client: pg.PoolClient, source: SourceAdapter, table: string, runId: string, resume: ProgressDetails | undefined, startedAt: string): Promise<{ position: number; rows: number }> {
  await client.query(createStagingSql(source, table));
  let position = resume?.committedPosition ?? 0;
  let rows = resume?.committedRows ?? 0;
  if (position > 0) {
    const kept = await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${table} WHERE src_pos <= $1`, [position]);
    if (resume?.serverStartedAt !== startedAt || kept.rows[0].n !== rows) {
      console.warn(`nordprop: ${source.id} run ${runId}: staging holds ${kept.rows[0].n} of the ${rows} rows committed before (database restarted?); staging again from the start`);
      position = 0;
      rows = 0;
    }
  }
  await client.query(`DELETE FROM ${table} WHERE src_pos > $1`, [position]);
  await client.query(`DELETE FROM source_reject WHERE run_id = $1 AND source_id = $2 AND position > $3`, [runId, source.id, position]);
  return { position, rows };
}

/**
 * Errors a source's parser raises are about the file (retrying reads the same bytes again): an
 * InputFormatError, or the zip entry's corruption when that is the cause. System errors (EIO)
 * pass through and are retried.
 */
async function* parsed<T>(records: AsyncIterable<T>, input: OpenedInput, filtered: boolean): AsyncGenerator<T> {
  const iterator = records[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await iterator.next();
    } catch (error) {
      const failure = await readFailure(error, { input: input.stream, label: input.fileName });
      // The parser read the changed features only: where it says it stopped is in their text.
      if (filtered && failure instanceof InputFormatError) {
        failure.message += ' (in the changed features, which a night parses alone: line and column count in their text, not the file\'s; `--force` parses the whole file)';
      }
      throw failure;
    }
    if (next.done) return;
    yield next.value;
  }
}

export interface StageRequest {
  runId: string;
  sourceId: string;
  artifactPath: string;
  /** The run's input and --force: a national, unforced run of a line-record source parses only its changed lines. */
  input?: string;
  force?: boolean;
  /**
   * Parse every record even on a night: the run's staging was lost (another run of the source
   * published since its changed records were chosen), and a whole stage cannot be overtaken again.
   */
  wholeFile?: boolean;
}

/**
 * Stream parse → normalize → reproject → COPY, in committed chunks so a retry resumes. Runs on
 * the queue of the worker that holds the artifact (workflows/ingest-source.ts), once one of
 * that worker's stage slots is free.
 */
export async function stageArtifact(request: StageRequest): Promise<StagedSnapshot> {
  const resume = Context.current().info.heartbeatDetails as ProgressDetails | undefined;
  return inStageSlot(() => withProgressHeartbeat(resume, (beat) => stage(request, resume, beat)), resume);
}

async function stage(request: StageRequest, resume: ProgressDetails | undefined, beat: ProgressBeats['beat']): Promise<StagedSnapshot> {
  const started = performance.now();
  // The stage's steps go to the ledger (details.stageStepsMs): on a night, where its time went.
  const timer = stepTimer();
  const { stageChunkRows, dataDir } = loadConfig();
  const source = getSource(request.sourceId);
  const table = stagingTableName(source.id, request.runId);
  const columns = stagingColumnList(source);

  const client = await getPool().connect();
  // Rejects go over their own connection: the main one is busy with COPY.
  const rejectClient = await getPool().connect();
  let failure: Error | undefined;
  let scratch: StageScratch | undefined;
  try {
    // Emptied first: a retried attempt removes what a killed one left.
    scratch = await openStageScratch(getPool(), dataDir, source.id, request.runId);
    const scratchDir = scratch.folder;
    const startedAt = await serverStartedAt(client);
    await client.query(createStagingSql(source, table));
    const lines = hasRecordHashes(source)
      ? await hashArtifactRecords(client, {
        pool: getPool(), source, runId: request.runId, artifactPath: request.artifactPath, stagingTable: table, scratchDir, timer,
        incremental: !request.force && !request.wholeFile && request.input !== undefined && inputCoversCountry(source, request.input),
      })
      : undefined;
    // Both live in the scratch folder, which goes when the stage ends.
    const changedFile = lines?.changedFile;
    const extractedFile = lines?.extractedFile;
    // An increment resumes only against the publish its committed chunks were chosen against.
    const resumable = !lines?.records.increment || resume?.linesBasedOn === lines.records.basedOn;
    const kept = await prepareStaging(client, source, table, request.runId, resumable ? resume : undefined, startedAt);
    const committedPosition = kept.position;
    // A night's changed lines or GML features were written aside while hashing, a zipped
    // GeoPackage extracted: read from there, not from the artifact again.
    const artifactPath = extractedFile?.path ?? request.artifactPath;
    const opened = await openInput(changedFile?.filePath ?? artifactPath, source.zipEntry);
    const input = extractedFile ? { ...opened, fileName: extractedFile.fileName } : opened;
    const changed = changedFile
      ? spooledRecordsOnly(source, input, lines!.changedLines!)
      : lines?.changedLines ? changedRecordsOnly(source, input, lines.changedLines) : undefined;
    const filePosition = changed?.filePosition;
    let rows = 0;
    let rowsCommitted = kept.rows;
    let rejected = 0;
    let chunkRows = 0;
    let lastPosition = committedPosition;
    let lastCommitted = committedPosition;
    let pendingRejects: Reject[] = [];
    let chunk: CopyWriter | undefined;
    const progress = (): ProgressDetails => ({
      phase: 'stage', bytes: input.bytesRead(), totalBytes: input.totalBytes, rows, rejected, committedPosition: lastCommitted, committedRows: rowsCommitted, serverStartedAt: startedAt,
      ...(lines?.records.basedOn ? { linesBasedOn: lines.records.basedOn } : {}),
    });
    const flushRejects = async () => {
      await insertRejects(rejectClient, request.runId, source.id, pendingRejects);
      pendingRejects = [];
    };
    // Rejects past the committed position are deleted again if the attempt is retried.
    // A cancelled attempt stops here: its open COPY goes with the discarded connection, the chunks
    // committed before stay for the retry to resume after.
    const commitChunk = async () => {
      throwIfCancelled();
      await chunk?.end();
      chunk = undefined;
      await flushRejects();
      rowsCommitted += chunkRows;
      chunkRows = 0;
      lastCommitted = lastPosition;
      beat(progress(), true);
    };

    // Between batches the event loop gets its turn: the beats are timers.
    const parseStarted = performance.now();
    const turn = eventLoopTurns();
    const parse = source.parse(changed?.stream ?? input.stream, { fileName: input.fileName, artifactPath, scratchDir, keepPosition: changed?.keepPosition });
    for await (const records of parsed(parse, input, filePosition !== undefined)) {
      for (const record of records) {
        if (filePosition) record.position = filePosition(record.position);
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
      await turn();
    }
    await commitChunk();
    timer.steps.parse = Math.round(performance.now() - parseStarted);

    const totals = await client.query<{ staged: number; rejected: number }>(
      `SELECT (SELECT count(*) FROM ${table}) AS staged,
              (SELECT count(*) FROM source_reject WHERE run_id = $1 AND source_id = $2 AND disposition = 'rejected') AS rejected`,
      [request.runId, source.id],
    );
    const { staged, rejected: rejectedTotal } = totals.rows[0];
    // Lines unchanged since the last publish were read (hashed) but not parsed.
    const unchanged = lines?.records.unchanged ?? 0;
    await recordDuration(request.runId, source.id, 'stage', performance.now() - started, {
      staging_table: table, rows_read: staged + rejectedTotal + unchanged, rows_staged: staged, rows_rejected: rejectedTotal,
      ...(lines ? { rows_unchanged: unchanged } : {}),
    }, client, { stageStepsMs: timer.steps });
    return {
      stagingTable: table, serverStartedAt: startedAt, rowsRead: staged + rejectedTotal + unchanged, rowsStaged: staged, rowsRejected: rejectedTotal,
      ...(lines ? { lineRecords: lines.records } : {}),
    };
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection that failed mid-COPY is not fit for reuse: release(error) discards it.
    client.release(failure);
    rejectClient.release(failure);
    await scratch?.remove();
  }
}
