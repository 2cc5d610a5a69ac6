import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfill, ingestWorkflowId } from '../../workflows/refresh.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { sourceOf } from '../support/runs.js';

/**
 * What the server sees of a long activity's heartbeats. The SDK passed them on at most every
 * 0.8 × the heartbeat timeout (24 s of a stage's 30), so a beat answered 6 s late on a busy host
 * timed a live attempt out. A stage held up by a lock beats on its 5 s timer; the server must
 * hear those beats within a few seconds, as an operator's `temporal workflow describe` shows.
 */
let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('the pipeline worker', () => {
  it('passes a long stage’s beats on to the server every few seconds', async () => {
    const locker = await pipeline.pool.connect();
    await locker.query('BEGIN');
    // The stage's first statements (clearing an earlier attempt's rejects) wait on this.
    await locker.query('LOCK TABLE source_reject IN ACCESS EXCLUSIVE MODE');
    const runId = `heartbeat-${Date.now()}-${process.pid}`;
    const run = await pipeline.client.workflow.start(backfill, { taskQueue: pipeline.taskQueue, workflowId: `backfill-${runId}`, args: [{ runId, sourceId: 'no-address', input: REAL_ADDRESS_ZIP }] });
    const ingest = pipeline.client.workflow.getHandle(ingestWorkflowId('no-address', runId));
    const staleness: number[] = [];
    try {
      const until = Date.now() + 22_000;
      while (Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const pending = await ingest.describe().then((d) => d.raw.pendingActivities ?? [], () => []);
        const stage = pending.find((a) => a.activityType?.name === 'stageArtifact' && a.lastHeartbeatTime);
        if (stage) staleness.push(Date.now() - (Number(stage.lastHeartbeatTime!.seconds) * 1000 + Math.floor((stage.lastHeartbeatTime!.nanos ?? 0) / 1e6)));
      }
    } finally {
      await locker.query('COMMIT');
      locker.release();
    }
    const summary = await run.result();
    expect(sourceOf(summary, 'no-address')).toMatchObject({ outcome: 'published', rowsStaged: 47 });
    // The stage was seen beating for most of the wait, and never more than a few seconds ago.
    expect(staleness.length).toBeGreaterThan(20);
    expect(Math.max(...staleness)).toBeLessThan(12_000);
  }, 90_000);
});
