import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { downloadArtifact } from '../../activities/download.js';
import { stageArtifact } from '../../activities/stage.js';
import type { ProgressDetails } from '../../activities/types.js';
import { getPool } from '../../lib/db.js';
import { activityTestDatabase, openTestRun } from '../support/database.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';

/**
 * A resumable activity (a stage, a download) beats from its first statement to its last, and
 * every beat carries its resume position. It used to beat only as rows or bytes went by: a
 * stage's statements before it resumes (blocked here by a lock; on a busy national host, a count
 * and deletes of millions of staged rows) and a download waiting for a server's answer went
 * without a beat, and on a busy host the server timed out live attempts. The activities run
 * against the real PostGIS and a real HTTP server; the SDK's activity harness records the beats.
 */
const STALL_MS = 9_000;
/** The activities' timer beats every 5 s; a stretch without a beat longer than this is a gap. */
const MAX_GAP_MS = 7_000;

let dataDir: string;
const runId = 'heartbeat-test';

activityTestDatabase();
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-heartbeat-'));
  process.env.NORDPROP_DATA_DIR = dataDir;
  process.env.NORDPROP_STAGE_CHUNK_ROWS = '10';
  await openTestRun(runId, { 'no-address': 'NO' });
});
afterAll(async () => {
  delete process.env.NORDPROP_STAGE_CHUNK_ROWS;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Beat {
  at: number;
  details: ProgressDetails | undefined;
}

/** Runs `activity` in a harness that starts as attempt 2 with `resume`, recording when each beat came. */
async function beatsOf<R>(resume: ProgressDetails, activity: (env: MockActivityEnvironment) => Promise<R>): Promise<{ beats: Beat[]; longestGap: number }> {
  const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: resume });
  const beats: Beat[] = [];
  env.on('heartbeat', (details: ProgressDetails | undefined) => beats.push({ at: performance.now(), details }));
  const started = performance.now();
  await activity(env);
  const times = [started, ...beats.map((b) => b.at), performance.now()];
  return { beats, longestGap: Math.max(...times.slice(1).map((t, i) => t - times[i])) };
}

describe('a resumable activity’s heartbeats', () => {
  it('a stage beats while a statement before its rows is blocked, repeating the position it resumes from', async () => {
    // A first attempt stages the file; its retry resumes after the chunk ending at line 21.
    const first = new MockActivityEnvironment();
    const progress: ProgressDetails[] = [];
    first.on('heartbeat', (details: ProgressDetails) => progress.push(details));
    await first.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP });
    const resume = progress.filter((p) => p.committedPosition === 21).at(-1)!;

    // The retry's first statements (dropping what the first attempt staged after line 21) wait
    // for a lock another session holds.
    const locker = await getPool().connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE source_reject IN ACCESS EXCLUSIVE MODE');
    const release = setTimeout(() => void locker.query('COMMIT').finally(() => locker.release()), STALL_MS);
    try {
      const { beats, longestGap } = await beatsOf(resume, (env) => env.run(stageArtifact, { runId, sourceId: 'no-address', artifactPath: REAL_ADDRESS_ZIP }));
      expect(longestGap).toBeLessThan(MAX_GAP_MS);
      // Every beat during the wait keeps the resume position, never an empty one.
      const waiting = beats.slice(0, beats.findIndex((b) => (b.details?.committedPosition ?? 0) > 21));
      expect(waiting.length).toBeGreaterThanOrEqual(1);
      expect(waiting.map((b) => b.details?.committedPosition)).toEqual(waiting.map(() => 21));
      expect(beats.at(-1)?.details).toMatchObject({ committedPosition: 48, committedRows: 47 });
    } finally {
      clearTimeout(release);
      await locker.query('COMMIT').catch(() => undefined);
    }
  }, 30_000);

  it('a download beats while the server takes its time to answer, repeating the bytes it resumes from', async () => {
    const body = await readFile(REAL_ADDRESS_ZIP);
    const server = http.createServer((_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-length': String(body.length) }).end(body), STALL_MS);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/adresser.zip`;
    // The first attempt got 1,000 bytes into its `.part` file before it was lost.
    const partDir = path.join(dataDir, 'artifacts', 'no-address');
    await mkdir(partDir, { recursive: true });
    await writeFile(path.join(partDir, `${runId}.adresser.zip.part`), body.subarray(0, 1000));
    const resume: ProgressDetails = { phase: 'download', bytes: 1000, totalBytes: body.length, rows: 0, rejected: 0 };
    try {
      const { beats, longestGap } = await beatsOf(resume, (env) => env.run(downloadArtifact, { runId, sourceId: 'no-address', input: url, force: true }));
      expect(longestGap).toBeLessThan(MAX_GAP_MS);
      const waiting = beats.filter((b) => b.at < beats.find((x) => (x.details?.bytes ?? 0) > 1000)!.at);
      expect(waiting.length).toBeGreaterThanOrEqual(1);
      expect(waiting.map((b) => b.details?.bytes)).toEqual(waiting.map(() => 1000));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 30_000);
});
