import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { stageArtifact } from '../../activities/stage.js';
import { validateStaged } from '../../activities/validate.js';
import { publishStaged } from '../../activities/publish.js';
import type { StagedSnapshot, ValidatedSnapshot } from '../../activities/types.js';
import { getPool } from '../../lib/db.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { noAddress } from '../../sources/no/address/adapter.js';
import { readZip, tempDir } from '../sample/helpers.js';
import { activityTestDatabase, openTestRun } from '../support/database.js';
import { tableDigest } from '../support/live-snapshot.js';

/**
 * Crash recovery empties UNLOGGED staging tables. A publish retried after a database restart
 * merged the emptied table and its anti-join deleted the whole live register, reporting success.
 * The publish (and the validation) must find in staging exactly what was validated, or refuse.
 */
let run = 0;

activityTestDatabase();

/** With `national`, the run is the register's national download, unforced: a night that stages only changed lines. */
async function stageAndValidate(national = false, artifactPath = REAL_ADDRESS_ZIP, again?: { runId: string }): Promise<{ runId: string; snapshot: ValidatedSnapshot }> {
  const input = national ? noAddress.defaultInput : artifactPath;
  const runId = again?.runId ?? `staging-lost-${run++}`;
  if (!again) {
    await openTestRun(runId, { 'no-address': 'NO' });
  }
  const activity = new MockActivityEnvironment();
  // Staged again after a lost staging, as the workflow does it: the whole file.
  const staged: StagedSnapshot = await activity.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath, input, force: !national, ...(again ? { wholeFile: true } : {}) });
  const snapshot: ValidatedSnapshot = await activity.run(validateStaged, { runId, sourceId: 'no-address', input, staged, force: !national });
  return { runId, snapshot };
}

const publish = (runId: string, snapshot: ValidatedSnapshot) => new MockActivityEnvironment().run(publishStaged, { runId, sourceId: 'no-address', snapshot });

/** Stages and publishes a file of the register as a night does (or, with `force`, whole). */
async function publishFile(artifactPath: string, options: { force?: boolean } = {}): Promise<void> {
  const run = options.force ? await stageAndValidate(false, artifactPath) : await stageAndValidate(true, artifactPath);
  await publish(run.runId, run.snapshot);
}

/** The real address sample's CSV with its record lines edited (the header kept). */
async function addressFile(edit: (lines: string[]) => string[]): Promise<string> {
  const [csvName, csv] = [...(await readZip(REAL_ADDRESS_ZIP)).entries()].find(([name]) => name.endsWith('.csv'))!;
  const [header, ...lines] = csv.toString('utf8').trimEnd().split('\n');
  const file = path.join(await tempDir('staging-lost'), path.basename(csvName));
  await writeFile(file, [header, ...edit(lines)].join('\n') + '\n');
  return file;
}

describe('publish of a staging table that lost its rows', () => {
  it('refuses an emptied staging table and leaves live as it was', async () => {
    const first = await stageAndValidate();
    await publish(first.runId, first.snapshot);
    const live = await tableDigest(getPool(), 'address');
    expect(live).toMatch(/^47:/);

    const second = await stageAndValidate();
    await getPool().query(`TRUNCATE ${second.snapshot.stagingTable}`); // what crash recovery does
    await expect(publish(second.runId, second.snapshot)).rejects.toMatchObject({ type: 'StagingLost', message: expect.stringMatching(/holds 0 rows where 47 rows were checked/) });
    expect(await tableDigest(getPool(), 'address')).toBe(live);
    const ledger = await getPool().query(`SELECT outcome FROM source_run WHERE run_id = $1`, [second.runId]);
    expect(ledger.rows[0].outcome).toBe('running');
  });

  it('refuses a night whose line hashes were lost, which would otherwise remove every live row', async () => {
    const first = await stageAndValidate(true);
    await publish(first.runId, first.snapshot);
    const live = await tableDigest(getPool(), 'address');

    const night = await stageAndValidate(true);
    expect(night.snapshot).toMatchObject({ rowsStaged: 0, lineRecords: { increment: true, total: 47, unchanged: 47 } });
    await getPool().query(`TRUNCATE ${night.snapshot.lineRecords!.table}`);
    await expect(publish(night.runId, night.snapshot)).rejects.toMatchObject({ type: 'StagingLost', message: expect.stringMatching(/line hashes .* hold 0 lines where 47 were hashed/) });
    expect(await tableDigest(getPool(), 'address')).toBe(live);
  });

  it('refuses a night whose record changes were lost, which would otherwise keep the rows its file no longer has', async () => {
    await publishFile(REAL_ADDRESS_ZIP);
    const live = await tableDigest(getPool(), 'address');
    const night = await stageAndValidate(true, await addressFile((lines) => lines.slice(0, -3)));
    expect(night.snapshot.lineRecords).toMatchObject({ increment: true, total: 44, changes: { rows: 3 } });
    await getPool().query(`TRUNCATE ${night.snapshot.lineRecords!.changes!.table}`);
    await expect(publish(night.runId, night.snapshot)).rejects.toMatchObject({ type: 'StagingLost', message: expect.stringMatching(/record changes .* hold 0 rows where the stage found 3/) });
    expect(await tableDigest(getPool(), 'address')).toBe(live);
  });

  it('a night overtaken by a run that published a line its file lacks removes that line\'s row too, not only those gone when it staged', async () => {
    await publishFile(await addressFile((lines) => lines.slice(0, -3)));
    // Staged against the shorter file: the three lines are new, no published record is gone.
    const late = await stageAndValidate(true, REAL_ADDRESS_ZIP);
    expect(late.snapshot.lineRecords).toMatchObject({ increment: true, unchanged: 44, changes: { rows: 3 } });
    // Meanwhile another run publishes the file with one more address: every line the late run took as unchanged is still published.
    const extra = await addressFile((lines) => [...lines, lines.at(-1)!.replace(/^\d+;/, '999999991;')]);
    await publishFile(extra);
    expect((await getPool().query(`SELECT count(*)::int AS n FROM address WHERE address_id = '999999991'`)).rows[0].n).toBe(1);
    await publish(late.runId, late.snapshot);
    // Live is the late run's file, as a full load of it gives.
    const afterNight = await tableDigest(getPool(), 'address');
    await publishFile(REAL_ADDRESS_ZIP, { force: true });
    expect(afterNight).toBe(await tableDigest(getPool(), 'address'));
    expect(afterNight).toMatch(/^47:/);
  });

  it('publishes a night that another run overtook only when no line it took as unchanged was changed since', async () => {
    const first = await stageAndValidate(true);
    await publish(first.runId, first.snapshot);
    const late = await stageAndValidate(true);
    // Another run publishes the same file: every line the late run left alone is still published.
    const same = await stageAndValidate(true);
    await publish(same.runId, same.snapshot);
    await publish(late.runId, late.snapshot);
    const live = await tableDigest(getPool(), 'address');

    const later = await stageAndValidate(true);
    // Another run publishes the file without its last three lines, which the later run took as unchanged.
    const [csvName, csv] = [...(await readZip(REAL_ADDRESS_ZIP)).entries()].find(([name]) => name.endsWith('.csv'))!;
    const shorter = path.join(await tempDir('staging-lost'), path.basename(csvName));
    await writeFile(shorter, csv.toString('utf8').trimEnd().split('\n').slice(0, -3).join('\n') + '\n');
    const other = await stageAndValidate(true, shorter);
    await publish(other.runId, other.snapshot);
    await expect(publish(later.runId, later.snapshot)).rejects.toMatchObject({
      type: 'StagingLost',
      message: expect.stringMatching(new RegExp(`run ${other.runId} published no-address after this run staged its changed lines against run ${late.runId}, and changed 3 of the lines`)),
    });
    expect(await tableDigest(getPool(), 'address')).not.toBe(live);

    // The workflow stages it again, whole: no other publish can overtake that, and it restores the file's three lines.
    const again = await stageAndValidate(true, REAL_ADDRESS_ZIP, { runId: later.runId });
    expect(again.snapshot.lineRecords).toMatchObject({ increment: false, unchanged: 0 });
    await publish(later.runId, again.snapshot);
    const rowCount = (digest: string) => digest.split(':')[0];
    expect(rowCount(await tableDigest(getPool(), 'address'))).toBe(rowCount(live));
  });

  it('refuses a staging table whose rows changed after validation', async () => {
    const { runId, snapshot } = await stageAndValidate();
    await getPool().query(`DELETE FROM ${snapshot.stagingTable} WHERE src_pos = (SELECT max(src_pos) FROM ${snapshot.stagingTable})`);
    await getPool().query(`INSERT INTO ${snapshot.stagingTable} SELECT * FROM ${snapshot.stagingTable} LIMIT 1`);
    await expect(publish(runId, snapshot)).rejects.toMatchObject({ type: 'StagingLost' });
  });

  it('refuses to validate a staging table staged before the database server last started', async () => {
    const runId = `staging-lost-${run++}`;
    await openTestRun(runId, { 'no-address': 'NO' });
    const activity = new MockActivityEnvironment();
    const staged: StagedSnapshot = await activity.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    const beforeRestart = { ...staged, serverStartedAt: '2000-01-01 00:00:00+00' };
    await expect(activity.run(validateStaged, { runId, sourceId: 'no-address', input: REAL_ADDRESS_ZIP, staged: beforeRestart, force: true })).rejects.toMatchObject({
      type: 'StagingLost',
      message: expect.stringMatching(/database restarted/),
    });
  });
});

/**
 * A run that closes its open sources as failed (a cancelled run, or a workflow that gave up on a
 * publish attempt whose worker it lost) says nothing was published after that. An attempt that
 * reached its publish transaction only then published anyway, under a ledger that said failed.
 */
describe('publish of a source its run already closed', () => {
  it.each(['failed', 'unchanged'])('refuses when the ledger entry is %s, and leaves live and the entry as they were', async (closedAs) => {
    const first = await stageAndValidate();
    await publish(first.runId, first.snapshot);
    const live = await tableDigest(getPool(), 'address');

    const edited = await addressFile((lines) => lines.slice(1));
    const late = await stageAndValidate(false, edited);
    await getPool().query(`UPDATE source_run SET outcome = $2, error = 'cancelled before it finished', finished_at = now() WHERE run_id = $1`, [late.runId, closedAs]);
    await expect(publish(late.runId, late.snapshot)).rejects.toMatchObject({
      type: 'SourceRunClosed',
      message: expect.stringMatching(new RegExp(`closed this source as ${closedAs} before its publish began`)),
    });
    expect(await tableDigest(getPool(), 'address')).toBe(live);
    const ledger = await getPool().query(`SELECT outcome, inserted, updated, deleted FROM source_run WHERE run_id = $1`, [late.runId]);
    expect(ledger.rows[0]).toEqual({ outcome: closedAs, inserted: 0, updated: 0, deleted: 0 });
  });
});
