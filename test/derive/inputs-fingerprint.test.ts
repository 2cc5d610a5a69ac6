import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../activities/types.js';
import { generateSample } from '../../sample/generate.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runRefresh, sourceOf } from '../support/runs.js';

const ENERGY_FILE = 'Enova_0000_Norge_Energiattester.csv';
let pipeline: TestPipeline;
let sampleDir: string;
let first: RunSummary;

beforeAll(async () => {
  pipeline = await startPipeline();
  sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: 300, seed: 'derive-skip' });
  first = await runRefresh(pipeline.client, pipeline.taskQueue);
}, 600_000);
afterAll(async () => {
  await pipeline?.stop();
});

const derivedOutcomes = (run: RunSummary) => Object.fromEntries(run.derived!.sources.map((s) => [s.sourceId, s.outcome]));

describe('the nightly refresh derives only what its inputs changed', () => {
  it('computes every dataset the first night', () => {
    expect(first.outcome).toBe('succeeded');
    expect(Object.values(derivedOutcomes(first))).toEqual(Array(8).fill('published'));
  });

  it('skips every dataset on a night when no source changed, and says so in the ledger', async () => {
    const night = await runRefresh(pipeline.client, pipeline.taskQueue);
    expect(night.sources.every((s) => s.outcome === 'unchanged')).toBe(true);
    expect(Object.values(derivedOutcomes(night))).toEqual(Array(8).fill('unchanged'));
    const ledger = await pipeline.pool.query(`SELECT details->>'inputs' AS inputs FROM source_run WHERE run_id = $1 AND source_id = 'derive-no-tenants'`, [night.derived!.runId]);
    expect(ledger.rows[0].inputs).toMatch(/^\d{4}-\d{2}-\d{2}\|/);
  });

  it('computes again when forced, and then changes nothing', async () => {
    const forced = await runRefresh(pipeline.client, pipeline.taskQueue, { force: true });
    for (const s of forced.derived!.sources) expect([s.sourceId, s.outcome, s.inserted, s.updated, s.deleted]).toEqual([s.sourceId, 'published', 0, 0, 0]);
  });

  it('recomputes the datasets of the country whose register changed, and only those', async () => {
    // One Norwegian energy certificate changes its grade in the night's file.
    const file = path.join(sampleDir, ENERGY_FILE);
    const lines = (await readFile(file, 'utf8')).split('\n');
    const cells = lines[1].split(',');
    cells[14] = cells[14] === 'A' ? 'B' : 'A'; // Energikarakter, before any quoted cell
    lines[1] = cells.join(',');
    await writeFile(file, lines.join('\n'));

    const night = await runRefresh(pipeline.client, pipeline.taskQueue);
    expect(sourceOf(night, 'no-energy')).toMatchObject({ outcome: 'published', updated: 1 });
    const outcomes = derivedOutcomes(night);
    for (const [ledgerId, outcome] of Object.entries(outcomes)) expect([ledgerId, outcome]).toEqual([ledgerId, ledgerId.startsWith('derive-no-') ? 'published' : 'unchanged']);
  });
});
