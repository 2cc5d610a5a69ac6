import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMITS_FILE_NAME } from '../../sources/no/permits/adapter.js';
import { CERTIFICATION_FILE_NAME } from '../../sources/no/certification/adapter.js';
import { ingestWorkflowId } from '../../workflows/refresh.js';
import { activityExecutions } from '../faults/support/activity-history.js';
import { ADDRESS_FILE, zipOf } from '../faults/support/snapshots.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runBackfill, runRefresh, sourceOf } from '../support/runs.js';

/**
 * The worker-specific queue with one worker (test/faults/worker-queues.test.ts runs two, as on
 * two machines): what a run's history shows about where each activity ran.
 */

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

const ingestActivities = (runId: string, sourceId: string) => activityExecutions(pipeline.client, ingestWorkflowId(sourceId, runId));

describe('ingestSource on a worker with a queue of its own', () => {
  it('downloads on the shared queue, stages on the worker’s own queue, validates and publishes on the shared one', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP });
    expect(sourceOf(summary, 'no-address')).toMatchObject({ outcome: 'published', rowsStaged: 47 });
    const queues = Object.fromEntries((await ingestActivities(summary.runId, 'no-address')).map((a) => [a.type, a.taskQueue]));
    expect(queues.stageArtifact).toMatch(new RegExp(`^${pipeline.taskQueue}-.+-[0-9a-f]+$`));
    expect(queues).toMatchObject({ downloadArtifact: pipeline.taskQueue, validateStaged: pipeline.taskQueue, publishStaged: pipeline.taskQueue });
  });

  it('an inbox file no worker has fails the source at once, naming the file: each worker is asked once, nothing is retried', async () => {
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['no-permits'] });
    const file = path.join(pipeline.dataDir, 'inbox', PERMITS_FILE_NAME);
    expect(sourceOf(summary, 'no-permits')).toMatchObject({ outcome: 'failed', error: `input file ${file} does not exist` });
    const downloads = (await ingestActivities(summary.runId, 'no-permits')).filter((a) => a.type === 'downloadArtifact');
    // On the shared queue, then on the one worker's own queue; a retry would only repeat the answer.
    expect(downloads.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'failed'], [1, 'failed']]);
  });

  it('an inbox file the worker has: read and staged there', async () => {
    const inbox = path.join(pipeline.dataDir, 'inbox');
    await mkdir(inbox, { recursive: true });
    await copyFile(path.join(__dirname, '../fixtures/no/certification/certifications.jsonl'), path.join(inbox, CERTIFICATION_FILE_NAME));
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['no-certification'] });
    expect(sourceOf(summary, 'no-certification')).toMatchObject({ outcome: 'published', rowsStaged: 6 });
    const activities = await ingestActivities(summary.runId, 'no-certification');
    expect(activities.filter((a) => a.type === 'stageArtifact').map((a) => [a.attempt, a.outcome])).toEqual([[1, 'completed']]);
  });
});

describe('two runs downloading at once on one worker', () => {
  it('files of the same name from two URLs do not share a download file: both runs publish, no download or stage attempt fails', async () => {
    // Two different registers under one file name, answered half by half only once both were
    // asked for, so that the two downloads write at the same time.
    const files: Record<string, Buffer> = {
      '/a': await readFile(REAL_ADDRESS_ZIP),
      '/b': await zipOf(`${ADDRESS_FILE}.csv`, await readFile(path.join(__dirname, '../fixtures/no/address/kristiansand-40-rows.csv')), true),
    };
    const waiting: (() => void)[] = [];
    let requests = 0;
    const server = createServer((request, response) => {
      const body = files[path.dirname(request.url ?? '')];
      if (!body) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-length': body.length });
      // A retried download (after the two first ones) gets its file at once.
      if (++requests > 2) return void response.end(body);
      response.write(body.subarray(0, body.length >> 1));
      waiting.push(() => response.end(body.subarray(body.length >> 1)));
      if (waiting.length === 2) for (const finish of waiting.splice(0)) setTimeout(finish, 100);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = (folder: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${folder}/${ADDRESS_FILE}.zip`;
    try {
      const summaries = await Promise.all(['/a', '/b'].map((folder) => runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: url(folder), force: true })));
      for (const summary of summaries) {
        const activities = await ingestActivities(summary.runId, 'no-address');
        const failed = activities.filter((a) => ['downloadArtifact', 'stageArtifact'].includes(a.type) && (a.attempt !== 1 || a.outcome !== 'completed'));
        expect(failed.map((a) => `${a.type} attempt ${a.attempt} ${a.outcome}: ${a.lastFailure ?? a.failure ?? ''}`), `${summary.runId}: failed attempts`).toEqual([]);
        expect(summary.outcome, `${summary.runId}: ${sourceOf(summary, 'no-address').error ?? ''}`).toBe('succeeded');
      }
      expect(summaries.map((summary) => sourceOf(summary, 'no-address').rowsRead).sort()).toEqual([40, 47]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
