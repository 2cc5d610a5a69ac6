import { monitorEventLoopDelay } from 'node:perf_hooks';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { stageArtifact } from '../../activities/stage.js';
import { generateSample } from '../../sample/generate.js';
import { recordsTableName } from '../../activities/staging-table.js';
import { getPool } from '../../lib/db.js';
import { activityTestDatabase, openTestRun } from '../support/database.js';
import { tempDir } from '../sample/helpers.js';

/**
 * A long stage stays answerable to its worker and to the server. It leaves its worker's event loop
 * free for timers between its batches. A GeoPackage is read synchronously (better-sqlite3), so its
 * stage went from promise to promise without ever returning to the loop: in a scaled national
 * refresh on 2 cores the worker's loop stalled for up to 18.7 s while se-building staged, its
 * heartbeat timers and workflow tasks with it (the refresh's workflow task timed out five times
 * over). Here the Swedish buildings of a national sample at 1 % are staged in one chunk against the
 * real PostGIS while the loop's delay is watched.
 */
const runId = 'event-loop-test';
const cancelledRunId = 'hash-pass-cancelled';
let sampleDir: string;

activityTestDatabase();
beforeAll(async () => {
  process.env.NORDPROP_STAGE_CHUNK_ROWS = '1000000';
  sampleDir = await tempDir('event-loop');
  await generateSample({ outDir: sampleDir, profile: 'national', scale: 0.01, seed: 'event-loop' });
  await openTestRun(runId, { 'se-building': 'SE' });
  await openTestRun(cancelledRunId, { 'se-building': 'SE' });
});
afterAll(async () => {
  delete process.env.NORDPROP_STAGE_CHUNK_ROWS;
  await rm(sampleDir, { recursive: true, force: true });
});

describe('a stage', () => {
  it('lets the event loop turn within a second while it stages a GeoPackage', async () => {
    const delays = monitorEventLoopDelay({ resolution: 10 });
    delays.enable();
    // The watch's first sample only starts its clock.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const staged: Awaited<ReturnType<typeof stageArtifact>> = await new MockActivityEnvironment().run(stageArtifact, { runId, sourceId: 'se-building', artifactPath: path.join(sampleDir, 'byggnad_sverige.gpkg') });
    delays.disable();
    expect(staged.rowsStaged).toBeGreaterThan(50_000);
    // A turn at least every 50 ms between batches; a batch of 5,000 buildings takes a few hundred
    // ms on a busy machine. Before, the loop turned only at the COPY's commit: 3.7 s here.
    expect(delays.max / 1e6).toBeLessThan(1_000);
  });

  // The hash pass (activities/record-hashes.ts) reads the whole file before the parse starts: an
  // attempt the server gave up on while it hashed must stop there, not hash on to the end and only
  // then notice at the parse's first chunk, beside the retry that replaces it.
  it('stops its hash pass at the next batch once cancelled', async () => {
    const attempt = new MockActivityEnvironment();
    const recordsTable = recordsTableName('se-building', cancelledRunId);
    let settled = false;
    // Cancelled while the pass's COPY into the run's records table is running.
    const watch = (async () => {
      while (!settled) {
        const hashing = await getPool().query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE $1`,
          [`COPY ${recordsTable} FROM STDIN%`],
        );
        if (hashing.rows.length > 0) return attempt.cancel('TIMED_OUT');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const staging = attempt.run(stageArtifact, { runId: cancelledRunId, sourceId: 'se-building', artifactPath: path.join(sampleDir, 'byggnad_sverige.gpkg') });
    await expect(staging.finally(() => (settled = true))).rejects.toMatchObject({ name: 'CancelledFailure', message: 'TIMED_OUT' });
    await watch;
    // The pass's COPY went with the attempt's connection: no line of the file was recorded. Before,
    // the pass hashed all of them (the parse's first chunk was the first to notice).
    const recorded = await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM ${recordsTable}`);
    expect(recorded.rows[0].n).toBe(0);
  });
});
