import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stageArtifact } from '../../activities/stage.js';
import { stagingTableName } from '../../activities/staging-table.js';
import { validateStaged } from '../../activities/validate.js';
import { publishStaged } from '../../activities/publish.js';
import { noAddress } from '../../sources/no/address/adapter.js';
import { readZip, tempDir } from '../sample/helpers.js';
import { getPool } from '../../lib/db.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { activityTestDatabase, openTestRun } from '../support/database.js';
import type { ProgressDetails, ValidatedSnapshot } from '../../activities/types.js';

/**
 * A retried stage attempt resumes after the last COPY chunk its predecessor committed (as its
 * last heartbeat reported), keeping those rows and re-staging only the rest. The activity runs
 * against the real PostGIS; the SDK's activity harness supplies the heartbeat details a retried
 * attempt receives from the server.
 */
const runId = 'resume-test';

activityTestDatabase();
beforeAll(async () => {
  process.env.NORDPROP_STAGE_CHUNK_ROWS = '10';
  await openTestRun(runId, { 'no-address': 'NO' });
});
afterAll(() => {
  delete process.env.NORDPROP_STAGE_CHUNK_ROWS;
});

const stagedRows = async (table: string) =>
  (await getPool().query(`SELECT src_pos, row_hash::text, xmin::text AS written_by FROM ${table} ORDER BY src_pos`)).rows;

type StagedRun = Awaited<ReturnType<typeof stageArtifact>>;

/** The last heartbeat an attempt sent once the chunk ending at `position` was committed. */
const heartbeatAt = (heartbeats: ProgressDetails[], position: number) => heartbeats.filter((h) => h.committedPosition === position).at(-1)!;

describe('stage resume', () => {
  it('heartbeats committed chunks, and a retry keeps them and re-stages only the rest', async () => {
    const heartbeats: ProgressDetails[] = [];
    const first = new MockActivityEnvironment();
    first.on('heartbeat', (details: ProgressDetails) => heartbeats.push(details));
    const staged: StagedRun = await first.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    expect(staged.rowsStaged).toBe(47);
    // Chunks of 10 rows: lines 2–11, 12–21, … each committed and reported.
    expect(heartbeats.map((h) => h.committedPosition).filter((p, i, all) => all.indexOf(p) === i)).toEqual([11, 21, 31, 41, 48]);
    const before = await stagedRows(staged.stagingTable);

    // The attempt "crashed" after the chunk ending at line 21 was committed.
    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: heartbeatAt(heartbeats, 21) });
    const resumed: StagedRun = await retry.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    expect(resumed.rowsStaged).toBe(47);
    const after = await stagedRows(resumed.stagingTable);
    expect(after.map((r) => [r.src_pos, r.row_hash])).toEqual(before.map((r) => [r.src_pos, r.row_hash]));
    // Rows up to line 21 are the first attempt's, untouched; the rest were written again.
    expect(after.filter((r) => r.src_pos <= 21).map((r) => r.written_by)).toEqual(before.filter((r) => r.src_pos <= 21).map((r) => r.written_by));
    expect(after.filter((r) => r.src_pos > 21).every((r, i) => r.written_by !== before.filter((b) => b.src_pos > 21)[i].written_by)).toBe(true);
  });

  // A stage noticed its cancellation only while waiting for a stage slot: an attempt the server had
  // given up on (a missed heartbeat) staged on to its end beside its retry, on a worker that was
  // already too busy to heartbeat (a national refresh on 2 cores: two COPYs of no-cadastre at once).
  it('stops at its next chunk once cancelled (its heartbeat timed out on the server), keeping the chunks committed before', async () => {
    const attempt = new MockActivityEnvironment();
    attempt.on('heartbeat', (details: ProgressDetails) => {
      if (details.committedPosition === 21) attempt.cancel('TIMED_OUT');
    });
    const staging = attempt.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    await expect(staging).rejects.toMatchObject({ name: 'CancelledFailure', message: 'TIMED_OUT' });
    const table = stagingTableName('no-address', runId);
    expect((await stagedRows(table)).map((r) => r.src_pos)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });

  it('starts over when the rows its heartbeat says are committed are gone (crash recovery empties UNLOGGED tables)', async () => {
    const heartbeats: ProgressDetails[] = [];
    const first = new MockActivityEnvironment();
    first.on('heartbeat', (details: ProgressDetails) => heartbeats.push(details));
    const staged: StagedRun = await first.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    // What a restart with `-m immediate` leaves of an UNLOGGED table: nothing.
    await getPool().query(`TRUNCATE ${staged.stagingTable}`);
    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: heartbeatAt(heartbeats, 21) });
    const resumed: StagedRun = await retry.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    expect(resumed).toMatchObject({ rowsRead: 47, rowsStaged: 47 });
    expect((await stagedRows(resumed.stagingTable)).map((r) => r.src_pos)).toEqual(Array.from({ length: 47 }, (_, i) => i + 2));
  });

  it('starts over when the database server restarted since the committed chunks', async () => {
    const heartbeats: ProgressDetails[] = [];
    const first = new MockActivityEnvironment();
    first.on('heartbeat', (details: ProgressDetails) => heartbeats.push(details));
    const staged: StagedRun = await first.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    const before = await stagedRows(staged.stagingTable);
    const otherStart = { ...heartbeatAt(heartbeats, 21), serverStartedAt: '2000-01-01 00:00:00+00' };
    const resumed: StagedRun = await new MockActivityEnvironment({ attempt: 2, heartbeatDetails: otherStart }).run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    expect(resumed.rowsStaged).toBe(47);
    // Every row written again, none trusted from before the "restart".
    const after = await stagedRows(resumed.stagingTable);
    expect(after.every((r, i) => r.written_by !== before[i].written_by)).toBe(true);
  });

  it("restarts a night's stage when the publish its changed lines were chosen against is no longer the source's last", async () => {
    // Live holds the file's first ten rows, published by a national run.
    const published = 'resume-base';
    const [csvName, csv] = [...(await readZip(REAL_ADDRESS_ZIP)).entries()].find(([name]) => name.endsWith('.csv'))!;
    const firstTen = path.join(await tempDir('stage-resume'), path.basename(csvName));
    await writeFile(firstTen, csv.toString('utf8').split('\n').slice(0, 11).join('\n') + '\n');
    await openTestRun(published, { 'no-address': 'NO' });
    const national = { sourceId: 'no-address', input: noAddress.defaultInput };
    const env = new MockActivityEnvironment();
    const loaded: StagedRun = await env.run(stageArtifact, { ...national, runId: published, artifactPath: firstTen });
    const snapshot: ValidatedSnapshot = await env.run(validateStaged, { ...national, runId: published, staged: loaded, force: true });
    await env.run(publishStaged, { runId: published, sourceId: 'no-address', snapshot });

    // The night: the whole file, whose 37 other rows are new, in chunks of 10.
    const heartbeats: ProgressDetails[] = [];
    const first = new MockActivityEnvironment();
    first.on('heartbeat', (details: ProgressDetails) => heartbeats.push(details));
    const staged: StagedRun = await first.run(stageArtifact, { ...national, runId, artifactPath: REAL_ADDRESS_ZIP });
    expect(staged).toMatchObject({ rowsStaged: 37, lineRecords: { increment: true, unchanged: 10, basedOn: published } });
    const before = await stagedRows(staged.stagingTable);
    const committed = heartbeats.find((h) => (h.committedRows ?? 0) >= 20)!;
    expect(committed.linesBasedOn).toBe(published);

    // Retried against the same publish, it keeps the committed chunks…
    const same: StagedRun = await new MockActivityEnvironment({ attempt: 2, heartbeatDetails: committed }).run(stageArtifact, { ...national, runId, artifactPath: REAL_ADDRESS_ZIP });
    const kept = await stagedRows(same.stagingTable);
    expect(kept.filter((r) => r.src_pos <= committed.committedPosition!).map((r) => r.written_by)).toEqual(before.filter((r) => r.src_pos <= committed.committedPosition!).map((r) => r.written_by));
    // …retried after another run published the source, it stages every changed line again.
    const other = { ...committed, linesBasedOn: 'another-run' };
    const restarted: StagedRun = await new MockActivityEnvironment({ attempt: 3, heartbeatDetails: other }).run(stageArtifact, { ...national, runId, artifactPath: REAL_ADDRESS_ZIP });
    expect(restarted.rowsStaged).toBe(37);
    const after = await stagedRows(restarted.stagingTable);
    expect(after.every((r, i) => r.written_by !== kept[i].written_by)).toBe(true);
  });
});
