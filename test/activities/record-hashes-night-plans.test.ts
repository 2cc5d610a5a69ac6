/**
 * A night's publish removes from `source_record` the published records its file no longer holds
 * (recordPublishedLines, activities/record-hashes.ts). The stage's comparison already read the
 * source's partition whole to find them; found again by hash, the publish's delete read it whole
 * once more, every night in proportion to the register rather than to the night (0.53 s of
 * se-cadastre's night at 0.25 × national, for 16,086 of 888,931 records). It now deletes them
 * where the comparison found them, by a TID scan.
 *
 * PostgreSQL's auto_explain sends each statement's plan to the pipeline's connections as a
 * notice. What the night leaves in `source_record` is held to what a whole stage of the same
 * file writes afresh.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample, type SampleResult } from '../../sample/generate.js';
import { getPool } from '../../lib/db.js';
import { getSource } from '../../sources/registry.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runBackfill, sourceOf } from '../support/runs.js';
import { tempDir } from '../sample/helpers.js';
import { explainPipelineStatements, readsOf, type ExplainedStatement } from '../support/explained-plans.js';

/** A source of line records, and one whose records are groups (a company's lines in three files). */
const SOURCES = [
  { sourceId: 'no-address', partition: 'source_record_no_address' },
  { sourceId: 'se-business', partition: 'source_record_se_business' },
];

let pipeline: TestPipeline;
const nights: SampleResult[] = [];
const explained: ExplainedStatement[] = [];

const input = (sample: SampleResult, sourceId: string) => path.join(sample.outDir, getSource(sourceId).inputFileName);

/** The source's published records, as (key, hash) text, sorted. */
async function publishedRecords(sourceId: string): Promise<string[]> {
  const rows = await getPool().query<{ entry: string }>(`SELECT record_key || ' ' || record_hash AS entry FROM source_record WHERE source_id = $1 ORDER BY 1`, [sourceId]);
  return rows.rows.map((row) => row.entry);
}

beforeAll(async () => {
  pipeline = await startPipeline();
  for (const night of [0, 1]) {
    nights.push(await generateSample({ outDir: await tempDir(`record-hashes-plans-${night}`), profile: 'national', scale: 0.002, seed: 'record-hashes-plans', night }));
  }
  await explainPipelineStatements(pipeline.databaseUrl, explained);
}, 240_000);
afterAll(async () => {
  await pipeline?.stop();
});

describe("a night's bookkeeping of its records", () => {
  it.each(SOURCES)('$sourceId: deletes the gone records where the comparison found them, not by reading every published record', async ({ sourceId, partition }) => {
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[0], sourceId) }), sourceId).outcome).toBe('published');
    explained.length = 0; // the night's plans only
    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId) }), sourceId);
    // An increment that removed or changed some records.
    expect(night.outcome).toBe('published');
    expect(night.rowsUnchanged).toBeGreaterThan(0);
    expect(night.updated + night.deleted).toBeGreaterThan(0);

    const deletes = explained.filter((statement) => /^\s*DELETE FROM source_record/.test(statement['Query Text']));
    expect(deletes.length).toBeGreaterThan(0);
    const goneRecords = deletes.filter((statement) => /\bline IS NULL\b/.test(statement['Query Text']));
    expect(goneRecords).toHaveLength(1);
    expect(readsOf(goneRecords[0].Plan, partition)).toEqual(['Tid Scan']);

    // The night's records are what a whole stage of the same file records.
    const afterNight = await publishedRecords(sourceId);
    expect(afterNight.length).toBeGreaterThan(0);
    const whole = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId), force: true }), sourceId);
    expect(whole).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await publishedRecords(sourceId)).toEqual(afterNight);
  });
});
