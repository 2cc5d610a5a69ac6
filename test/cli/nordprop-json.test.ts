import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { SOURCES } from '../../sources/registry.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';

const run = promisify(execFile);
let pipeline: TestPipeline;

/** The built CLI (the package bin), with this file's database, server and task queue. */
async function nordprop(...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [path.join(PROJECT_ROOT, 'bin/nordprop.js'), ...args], { env: { ...process.env } });
    return { code: 0, json: JSON.parse(stdout), stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, json: failed.stdout ? JSON.parse(failed.stdout) : undefined, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('nordprop --json', () => {
  it('sample --json writes a file for every registered source, from the compiled CLI', async () => {
    const out = path.join(pipeline.dataDir, 'cli-sample');
    const { code, json, stderr } = await nordprop('sample', '--out', out, '--parcels', '30', '--seed', 'cli', '--json');
    expect(code, stderr).toBe(0);
    expect(Object.keys(json.sourceFiles).sort()).toEqual(SOURCES.map((source) => source.id).sort());
    for (const file of Object.values(json.sourceFiles) as string[]) expect((await stat(file)).isFile()).toBe(true);
  });

  it('backfill --wait --json carries the run id, outcome and per-source counts', async () => {
    const result = await nordprop('backfill', '--source', 'no-address', '--input', REAL_ADDRESS_ZIP, '--wait', '--json');
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ runId: expect.stringMatching(/^r\d{8}-\d{6}-[0-9a-f]{6}$/), outcome: 'succeeded', kind: 'backfill' });
    expect(result.json.sources).toEqual([
      expect.objectContaining({ sourceId: 'no-address', outcome: 'published', rowsRead: 47, rowsStaged: 47, rowsRejected: 0, inserted: 47, updated: 0, deleted: 0 }),
    ]);

    const runs = await nordprop('runs', '--json');
    expect(runs.json.items[0]).toMatchObject({ runId: result.json.runId, kind: 'backfill', outcome: 'succeeded', rowsRead: 47 });
    const shown = await nordprop('runs', 'show', result.json.runId, '--json');
    expect(shown.json.sources[0]).toMatchObject({ sourceId: 'no-address', inputSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Object.keys(shown.json.sources[0].durationsMs).sort()).toEqual(['download', 'publish', 'stage', 'validate']);
  });

  it('lookup --json answers the parcel-less case and rejects an impossible latitude', async () => {
    expect((await nordprop('lookup', '--lat', '58.15', '--lon', '8.06', '--json')).json).toEqual({ addresses: [] });
    const bad = await nordprop('lookup', '--lat', '95', '--lon', '8', '--json');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/option '--lat <lat>' argument '95' is invalid\. expected a latitude in WGS84 degrees, from -90 to 90/);
  });

  it('exits non-zero with the reason when a backfill fails validation', async () => {
    const result = await nordprop('backfill', '--source', 'no-address', '--input', path.join(PROJECT_ROOT, 'test/fixtures/no/address/kristiansand-40-rows.csv'), '--wait', '--json');
    // A file without a Geonorge national name replaces only its municipalities: 40 of 47 in 4204 is a 15% drop.
    expect(result.code).toBe(1);
    expect(result.json.sources[0]).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/snapshot has 40 rows against 47 live/) });
  });

  it('schedule create is idempotent and describes the nightly 02:00 Europe/Oslo run with overlaps skipped', async () => {
    const created = await nordprop('schedule', 'create', '--json');
    expect(created.code).toBe(0);
    expect((await nordprop('schedule', 'create', '--json')).code).toBe(0);
    const paused = await nordprop('schedule', 'pause', '--json');
    expect(paused.json).toMatchObject({ scheduleId: 'nordprop-nightly-refresh', paused: true, timezone: 'Europe/Oslo', overlap: 'SKIP' });
    // 02:00 in Oslo is 01:00 UTC in winter and 00:00 UTC in summer.
    for (const next of paused.json.nextActionTimes) expect(next).toMatch(/T0[01]:00:00\.000Z$/);
    expect((await nordprop('schedule', 'unpause', '--json')).json.paused).toBe(false);
  });

  it('schedule create --derive-concurrency sets the derived datasets computed at once, on an existing schedule too', async () => {
    expect((await nordprop('schedule', 'create', '--json')).code).toBe(0);
    const updated = await nordprop('schedule', 'create', '--derive-concurrency', '3', '--json');
    expect(updated.code).toBe(0);
    expect(updated.json).toMatchObject({ scheduleId: 'nordprop-nightly-refresh', deriveConcurrency: 3 });
    expect((await nordprop('schedule', 'describe', '--json')).json.deriveConcurrency).toBe(3);
    const misplaced = await nordprop('schedule', 'pause', '--derive-concurrency', '3');
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/--derive-concurrency is set with schedule create, not pause/);
  });
});
