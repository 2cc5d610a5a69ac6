import { monitorEventLoopDelay } from 'node:perf_hooks';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { stageArtifact } from '../../activities/stage.js';
import { generateSample } from '../../sample/generate.js';
import { activityTestDatabase, openTestRun } from '../support/database.js';
import { tempDir } from '../sample/helpers.js';

/**
 * A stage leaves its worker's event loop free for timers between its batches. A GeoPackage is
 * read synchronously (better-sqlite3), so its stage went from promise to promise without ever
 * returning to the loop: in a scaled national refresh on 2 cores the worker's loop stalled for up
 * to 18.7 s while se-building staged, its heartbeat timers and workflow tasks with it (the
 * refresh's workflow task timed out five times over). Here the Swedish buildings of a national
 * sample at 1 % are staged in one chunk against the real PostGIS while the loop's delay is watched.
 */
const runId = 'event-loop-test';
let sampleDir: string;

activityTestDatabase();
beforeAll(async () => {
  process.env.NORDPROP_STAGE_CHUNK_ROWS = '1000000';
  sampleDir = await tempDir('event-loop');
  await generateSample({ outDir: sampleDir, profile: 'national', scale: 0.01, seed: 'event-loop' });
  await openTestRun(runId, { 'se-building': 'SE' });
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
});
