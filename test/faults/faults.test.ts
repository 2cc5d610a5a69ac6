import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingTableName } from '../../activities/staging-table.js';
import { ingestWorkflowId } from '../../workflows/refresh.js';
import { liveDigest } from '../support/live-snapshot.js';
import { activityExecutions } from './support/activity-history.js';
import { BAD_FILES, writeDropped } from './support/bad-files.js';
import { expectLiveIsAOrB, expectSettledRun, holdRunClose, holdStage, lockLive } from './support/faults.js';
import { addressCsv, ADDRESS_FILE, teigGml, TEIG_FILE, writeInput, zipOf } from './support/snapshots.js';
import {
  activityAttempts, contentDigest, ledger, runsShow, settle, stagingTables, startFaultStack, TEIG_FEATURES,
  type FaultStack, type Scenario,
} from './support/stack.js';
import { waitFor } from './support/util.js';

/**
 * Fault injection against a real stack of the suite's own (PostgreSQL cluster, Temporal dev
 * server on a SQLite file, worker processes): snapshot A of no-address is live, snapshot B is
 * loaded while something breaks. Afterwards live must be exactly A or exactly B, the ledger
 * must say how the run ended, no staging table may be left, and a failure must say why.
 */

const MINUTE = 60_000;
let stack: FaultStack;

beforeAll(async () => {
  stack = await startFaultStack();
}, 5 * MINUTE);
afterAll(async () => {
  await stack?.stop();
}, 2 * MINUTE);

it('B really changes A: a clean run of B updates, inserts and deletes rows', () => {
  const { b } = stack.inputs.snapshots.changes;
  expect(stack.cleanB.sources[0]).toMatchObject({ outcome: 'published', inserted: b.inserted, updated: b.updated, deleted: b.deleted });
  expect(b.deleted / stack.inputs.snapshots.a.length).toBeLessThan(0.1);
  expect(stack.digestB).not.toEqual(stack.digestA);
});

describe.concurrent('faults of one run, each in a database and worker of its own', () => {
  it('worker SIGKILLed during stage: a new worker finishes the run and publishes B', async ({ onTestFinished }) => {
    const s = await scenario('kill-stage', onTestFinished);
    const run = await s.backfill(stack.inputs.b);
    const hold = await holdStage(s, run);
    const scratchOfStage = path.join(s.dataDir, 'scratch', run.runId, 'no-address');
    expect(existsSync(scratchOfStage), 'the stage\'s scratch folder while it stages').toBe(true);
    await s.worker.kill();
    await hold.release();
    await s.worker.start();
    expect(await expectSettledRun(stack, s, run, await settle(run, 4 * MINUTE))).toBe('B');
    // The restarted worker polls the same queue of its own (its data folder keeps the id): the
    // stage is retried there and resumes; nothing is downloaded again.
    const activities = await activityExecutions(stack.client, run.ingestWorkflowId);
    expect(activities.filter((a) => a.type === 'downloadArtifact').length, 'downloads').toBe(1);
    expect(activities.filter((a) => a.type === 'stageArtifact').map((a) => [a.outcome, a.attempt > 1]), 'the stage, retried').toEqual([['completed', true]]);
    expect(s.worker.output(), 'the retried stage resumed after the committed chunks').not.toMatch(/staging again from the start/);
    // The killed attempt's scratch folder (test/activities/stage-scratch.test.ts) went with the retry's.
    expect(await readdir(path.join(s.dataDir, 'scratch')).catch(() => []), 'scratch folders left').toEqual([]);
  }, 6 * MINUTE);

  it('worker SIGKILLed inside the publish transaction: a new worker finishes the run and publishes B', async ({ onTestFinished }) => {
    const s = await scenario('kill-publish', onTestFinished);
    const lock = await lockLive(s);
    const run = await s.backfill(stack.inputs.b);
    await lock.blocked();
    await s.worker.kill();
    await s.worker.start();
    await lock.release();
    expect(await expectSettledRun(stack, s, run, await settle(run, 4 * MINUTE))).toBe('B');
  }, 6 * MINUTE);

  it('worker SIGKILLed in a short bookkeeping activity (the run\'s close): another worker closes the run within its heartbeat timeout', async ({ onTestFinished }) => {
    const s = await scenario('kill-close', onTestFinished);
    const run = await s.backfill(stack.inputs.b);
    const hold = await holdRunClose(s, run.runId);
    expect(await hold.blocked()).toMatch(/^\s*UPDATE run SET outcome/);
    await s.worker.kill();
    await s.worker.start();
    await hold.release();
    // The close is retried once its heartbeats stop (30 s), not after its start-to-close timeout
    // (5 minutes), which this wait would not outlast.
    expect(await expectSettledRun(stack, s, run, await settle(run, 2 * MINUTE))).toBe('B');
    const closes = (await activityExecutions(stack.client, run.workflowId)).filter((a) => a.type === 'finishRun');
    expect(closes.map((a) => [a.outcome, a.attempt > 1, a.lastFailure]), 'the close, retried after its heartbeat timeout').toEqual([['completed', true, expect.stringMatching(/heartbeat/i)]]);
  }, 5 * MINUTE);

  it('two backfills of the source started at the same moment: both end, live is the snapshot published last', async ({ onTestFinished }) => {
    const s = await scenario('two-backfills', onTestFinished);
    const runs = await Promise.all([s.backfill(stack.inputs.b), s.backfill(stack.inputs.c)]);
    const settled = await Promise.all(runs.map((run) => settle(run, 3 * MINUTE)));
    expect(settled.map((x) => x.status)).toEqual(['COMPLETED', 'COMPLETED']);
    const entries = await s.pool.query<{ run_id: string; outcome: string; error: string | null }>(
      `SELECT run_id, outcome, error FROM source_run WHERE run_id = ANY($1) ORDER BY finished_at`,
      [runs.map((run) => run.runId)],
    );
    expect(entries.rows.map((row) => row.outcome), JSON.stringify(entries.rows)).toEqual(['published', 'published']);
    const last = entries.rows[1].run_id === runs[0].runId ? 'B' : 'C';
    expect(await expectLiveIsAOrB(stack, s, ['B', 'C'])).toBe(last);
    expect(await stagingTables(s)).toEqual([]);
  }, 4 * MINUTE);

  it('a reader polling live during a publish sees A, then B, never anything else', async ({ onTestFinished }) => {
    const s = await scenario('reader', onTestFinished);
    const lock = await lockLive(s);
    const run = await s.backfill(stack.inputs.b);
    const seen: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const digest = JSON.stringify(await contentDigest(s.pool, stack.addressTables));
        seen.push(digest === JSON.stringify(stack.digestA) ? 'A' : digest === JSON.stringify(stack.digestB) ? 'B' : `neither: ${digest}`);
        await new Promise((resolve) => setTimeout(resolve, 20)); // pacing only: leave the publish some of the two cores
      }
    })();
    await lock.blocked();
    // Reads while the publish transaction is open (it waits for the lock), then through the merge and after.
    const during = seen.length;
    await waitFor('two reads during the publish', () => seen.length >= during + 2, MINUTE);
    await lock.release();
    const settled = await settle(run, 3 * MINUTE);
    const after = seen.length;
    await waitFor('a read after the run', () => seen.length >= after + 1, MINUTE);
    reading = false;
    await reader;
    expect(seen.filter((x) => x !== 'A' && x !== 'B')).toEqual([]);
    expect(seen.join('').replace(/(.)\1+/g, '$1')).toBe('AB');
    expect(await expectSettledRun(stack, s, run, settled)).toBe('B');
  }, 4 * MINUTE);

  it.for(['ingest child', 'backfill'])(
    'a workflow terminated mid-stage (the %s): the next run of the source marks its entry failed and drops its staging table',
    { timeout: 4 * MINUTE },
    async (target, { onTestFinished }) => {
      const s = await scenario(`terminate-${target.split(' ')[0]}`, onTestFinished);
      const run = await s.backfill(stack.inputs.b);
      const hold = await holdStage(s, run);
      await stack.client.workflow.getHandle(target === 'backfill' ? run.workflowId : run.ingestWorkflowId).terminate('fault suite: terminated by an operator');
      await hold.release();
      const next = await s.backfill(stack.inputs.b);
      const settled = await settle(next, 3 * MINUTE);
      const terminated = await ledger(s, run.runId);
      expect(terminated?.sourceOutcome, `terminated run's source_run (${terminated?.error})`).toBe('failed');
      expect(terminated?.error).toMatch(/terminated/i);
      expect(terminated?.runOutcome, "terminated run's run entry").not.toBe('running');
      expect(await expectSettledRun(stack, s, next, settled)).toBe('B');
    },
  );

  it('a failed source ends its ingest child as Failed, the parent completes with failed or partial', async ({ onTestFinished }) => {
    const inputDir = path.join(stack.dir, 'inputs', 'child-failed');
    const s = await scenario('child-failed', onTestFinished, { NORDPROP_INPUT_DIR: inputDir });
    // A refresh of two sources from the input folder: the address file has a header the adapter does not know.
    const header = addressCsv(stack.inputs.snapshots.b).replace(';EPSG-kode;', ';EPSG;');
    await writeInput(stack.dir, 'child-failed', `${ADDRESS_FILE}.zip`, await zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(header), true));
    await writeInput(stack.dir, 'child-failed', TEIG_FILE.replace(/\.gml$/, '.zip'), await zipOf(TEIG_FILE, Buffer.from(await teigGml(TEIG_FEATURES)), true));
    const refresh = await s.refresh(['no-address', 'no-cadastre']);
    const settled = await settle(refresh, 3 * MINUTE);
    expect(settled.status).toBe('COMPLETED');
    expect(settled.summary?.outcome).toBe('partial');
    expect(settled.summary?.sources.find((x) => x.sourceId === 'no-address')).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/unknown header/) });
    expect(settled.summary?.sources.find((x) => x.sourceId === 'no-cadastre')).toMatchObject({ outcome: 'published' });
    const status = async (workflowId: string) => (await stack.client.workflow.getHandle(workflowId).describe()).status.name;
    expect(await status(ingestWorkflowId('no-cadastre', refresh.runId))).toBe('COMPLETED');
    expect(await status(ingestWorkflowId('no-address', refresh.runId)), 'the failed source\'s ingest child').toBe('FAILED');

    const backfill = await s.backfill(path.join(inputDir, `${ADDRESS_FILE}.zip`));
    const failed = await settle(backfill, 2 * MINUTE);
    expect(failed.status).toBe('COMPLETED');
    expect(failed.summary?.outcome).toBe('failed');
    expect(await status(backfill.ingestWorkflowId), 'the failed source\'s ingest child').toBe('FAILED');
    expect(await expectLiveIsAOrB(stack, s)).toBe('A');
  }, 4 * MINUTE);

  describe.concurrent('bad files through a real backfill: live unchanged, the run failed with a clear message, not retried', () => {
    it.for(BAD_FILES)('$name', { timeout: 3 * MINUTE }, async (bad, { onTestFinished }) => {
      const s = await scenario(`bad-${bad.id}`, onTestFinished);
      const run = await s.backfill(await bad.write(stack), { sourceId: bad.sourceId });
      const settled = await settle(run, 2 * MINUTE);
      expect(settled.status).toBe('COMPLETED');
      expect(settled.summary?.outcome).toBe('failed');
      const entry = await ledger(s, run.runId, bad.sourceId);
      expect(entry).toMatchObject({ runOutcome: 'failed', sourceOutcome: 'failed', inserted: 0, updated: 0, deleted: 0 });
      expect(entry?.error).toMatch(bad.error);
      expect((await runsShow(s, run.runId)).sources[0].error).toBe(entry?.error);
      expect(await activityAttempts(stack.client, run.ingestWorkflowId), 'attempts per activity').toMatchObject({ [bad.activity]: 1 });
      expect(await stagingTables(s)).toEqual([]);
      expect(await liveDigest(s.pool)).toEqual(stack.storeA);
    });

    it('30 % of the rows removed, with force: published', async ({ onTestFinished }) => {
      const s = await scenario('drop-forced', onTestFinished);
      const run = await s.backfill(await writeDropped(stack, 'dropped-forced'), { force: true });
      const settled = await settle(run, 2 * MINUTE);
      expect(settled.summary?.outcome).toBe('succeeded');
      const removed = stack.inputs.snapshots.a.length - stack.inputs.snapshots.a.filter((_, i) => i % 10 >= 3).length;
      expect(await ledger(s, run.runId)).toMatchObject({ sourceOutcome: 'published', inserted: 0, updated: 0, deleted: removed });
      const count = await s.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM address`);
      expect(count.rows[0].n).toBe(stack.inputs.snapshots.a.length - removed);
      expect(await stagingTables(s)).toEqual([]);
    }, 3 * MINUTE);
  });
});

describe('faults of the infrastructure, one at a time (they disturb the whole stack)', () => {
  it('PostgreSQL restarted with -m immediate during stage: live is A or B, never a mix', async ({ onTestFinished }) => {
    const s = await scenario('pg-stage', onTestFinished);
    const run = await s.backfill(stack.inputs.b);
    const hold = await holdStage(s, run);
    // Precondition: so few rows committed that a stage resuming after them, without them, would
    // stay above the drop guard (the defect then publishes a mix instead of failing validation).
    expect(stack.inputs.snapshots.b.length - hold.rows).toBeGreaterThanOrEqual(Math.ceil(stack.inputs.snapshots.a.length * 0.9));
    await stack.cluster.crashRestart();
    await hold.release();
    await expectSettledRun(stack, s, run, await settle(run, 3 * MINUTE));
    await expectCrashExplained(s, run.runId);
  }, 5 * MINUTE);

  it('PostgreSQL restarted with -m immediate inside the publish transaction: live is A or B, not emptied', async ({ onTestFinished }) => {
    const s = await scenario('pg-publish', onTestFinished);
    const lock = await lockLive(s);
    const run = await s.backfill(stack.inputs.b);
    await lock.blocked();
    await stack.cluster.crashRestart();
    await lock.release();
    await expectSettledRun(stack, s, run, await settle(run, 3 * MINUTE));
    await expectCrashExplained(s, run.runId);
  }, 5 * MINUTE);

  it('Temporal server stopped during stage and started again on the same file and port: the run ends, live is A or B', async ({ onTestFinished }) => {
    const s = await scenario('temporal-restart', onTestFinished);
    const run = await s.backfill(stack.inputs.b);
    const hold = await holdStage(s, run);
    await stack.temporal.stop();
    // The stage goes on while the server is down, and finishes writing before it is back.
    await hold.release();
    const table = stagingTableName('no-address', run.runId);
    // Live holds A: the stage parses the lines of B that A lacks (activities/record-hashes.ts).
    const linesOfA = new Set(addressCsv(stack.inputs.snapshots.a).split('\n'));
    const changed = addressCsv(stack.inputs.snapshots.b).split('\n').filter((line, i) => i > 0 && line !== '' && !linesOfA.has(line)).length;
    await waitFor('the stage to write every changed row of B', async () => {
      const rows = await s.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      return rows.rows[0].n === changed;
    }, 2 * MINUTE, { intervalMs: 100 });
    await stack.temporal.start();
    await expectSettledRun(stack, s, run, await settle(run, 4 * MINUTE));
  }, 6 * MINUTE);
});

async function scenario(name: string, onTestFinished: (fn: () => Promise<void>) => void, env?: Record<string, string>): Promise<Scenario> {
  const s = await stack.scenario(name, env);
  onTestFinished(() => s.stop());
  return s;
}

/** A run that failed after a crash says so (not, say, that the snapshot shrank). */
async function expectCrashExplained(s: Scenario, runId: string): Promise<void> {
  const entry = await ledger(s, runId);
  if (entry?.sourceOutcome !== 'failed') return;
  expect(entry.error).toMatch(/restart|crash|recover|lost|terminat|connection/i);
  expect(entry.error).not.toMatch(/snapshot has \d+ rows/);
  expect((await runsShow(s, runId)).sources[0].error).toBe(entry.error);
}
