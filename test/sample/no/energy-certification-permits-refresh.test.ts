import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATION_SAMPLE_FILE } from '../../../sample/no/certifications.js';
import { ENERGY_SAMPLE_FILE } from '../../../sample/no/energy-certificates.js';
import { PERMITS_SAMPLE_FILE } from '../../../sample/no/permits.js';
import { planSample } from '../../../sample/plan.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runRefresh, sourceOf } from '../../support/runs.js';
import { tableDigest } from '../../support/live-snapshot.js';
import { tempDir } from '../helpers.js';

/**
 * The three sample files as the demo uses them: written into one folder, read by the refresh
 * through NORDPROP_INPUT_DIR under each source's inputFileName, as the nightly would.
 */
const SOURCES = ['no-energy', 'no-certification', 'no-permits'];
const TABLES = ['energy_certificate', 'certification', 'building_permit'];
const plan = planSample(1500, '5');

let pipeline: TestPipeline;
const written: Record<string, number> = {};
beforeAll(async () => {
  const dir = await tempDir('sample-refresh');
  for (const file of [ENERGY_SAMPLE_FILE, CERTIFICATION_SAMPLE_FILE, PERMITS_SAMPLE_FILE]) {
    written[file.sourceId] = (await file.write({ path: path.join(dir, file.fileName), plan, seed: plan.seed, parcels: plan.parcels })).rows;
  }
  pipeline = await startPipeline({ NORDPROP_INPUT_DIR: dir });
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('refresh of the sample energy certificates, certifications and permits', () => {
  it('publishes every sample record without a reject', async () => {
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: SOURCES });
    expect(summary.outcome).toBe('succeeded');
    for (const sourceId of SOURCES) {
      expect(written[sourceId]).toBeGreaterThan(0);
      expect(sourceOf(summary, sourceId)).toMatchObject({ outcome: 'published', rowsRead: written[sourceId], rowsRejected: 0, inserted: written[sourceId], deleted: 0 });
    }
    // Every record names a municipality of the sample plan.
    const municipalities = new Set(plan.blocks.map((b) => b.municipality.kommunenummer));
    for (const table of TABLES) {
      const { rows } = await pipeline.pool.query(`SELECT DISTINCT municipality_code FROM ${table}`);
      for (const row of rows) expect(municipalities).toContain(row.municipality_code);
    }
  });

  it('a second nightly on the unchanged files is unchanged and writes nothing', async () => {
    const before = await Promise.all(TABLES.map((table) => tableDigest(pipeline.pool, table)));
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: SOURCES });
    for (const sourceId of SOURCES) expect(sourceOf(summary, sourceId)).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    expect(await Promise.all(TABLES.map((table) => tableDigest(pipeline.pool, table)))).toEqual(before);
  });
});
