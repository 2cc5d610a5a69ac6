/**
 * A night's publish removes from `source_record` the published records its file no longer holds
 * (recordPublishedLines, activities/record-hashes.ts). The stage's comparison already read the
 * source's partition whole to find them; found again by hash, the publish's delete read it whole
 * once more, every night in proportion to the register rather than to the night (0.53 s of
 * se-cadastre's night at 0.25 × national, for 16,086 of 888,931 records). It now deletes them
 * where the comparison found them, by a TID scan.
 *
 * Validate's check for staged rows whose key an unchanged line holds (quarantineDuplicatesOfUnchanged)
 * hashed every line of the file, also on a night where no staged key was held by a record the
 * file still has (0.44 s of no-address's night at 0.25 × national, 1.27 s of se-business's): the
 * join on the key's text was estimated at millions of rows. It now reads the file's records only
 * for the keys that can meet an unchanged line, and with their true count.
 *
 * PostgreSQL's auto_explain sends each statement's plan to the pipeline's connections as a
 * notice. What the night leaves in `source_record` is held to what a whole stage of the same
 * file writes afresh.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample, type SampleResult } from '../../sample/generate.js';
import { getPool } from '../../lib/db.js';
import { getSource } from '../../sources/registry.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runBackfill, sourceOf } from '../support/runs.js';
import { tempDir } from '../sample/helpers.js';
import { fileLines } from '../support/sample-files.js';
import { explainPipelineStatements, readsOf, tablesReadWhole, type ExplainedStatement, type PlanNode } from '../support/explained-plans.js';

/** A source of line records, and one whose records are groups (a company's lines in three files). */
const SOURCES = [
  { sourceId: 'no-address', partition: 'source_record_no_address' },
  { sourceId: 'se-business', partition: 'source_record_se_business' },
];

/** The run's table of the file's record hashes (activities/staging-table.ts, recordsTableName). */
const isRecordsTable = (relation: string) => /^r_/.test(relation);

/** The relations a plan's hash tables are built from (the inner side of each hash join). */
const hashedRelations = (node: PlanNode): string[] =>
  (node['Node Type'] === 'Hash' ? tablesReadWhole(node) : []).concat((node.Plans ?? []).flatMap(hashedRelations));

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
  it.each(SOURCES)('$sourceId: deletes the gone records where the comparison found them, and does not read the file\'s records again to look for duplicates of unchanged lines', async ({ sourceId, partition }) => {
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

    // Validate's check against the unchanged lines: the sample's night changes records and has
    // no duplicate keys, so every staged key a published record holds is one whose record is gone,
    // and the file's records are not read for it (a night where one is held: the case below).
    const duplicateChecks = explained.filter((statement) => statement['Query Text'].includes('unchanged at position'));
    expect(duplicateChecks.flatMap((statement) => tablesReadWhole(statement.Plan)).filter(isRecordsTable)).toEqual([]);
    expect(duplicateChecks.flatMap((statement) => hashedRelations(statement.Plan)).filter(isRecordsTable)).toEqual([]);

    // The night's records are what a whole stage of the same file records.
    const afterNight = await publishedRecords(sourceId);
    expect(afterNight.length).toBeGreaterThan(0);
    const whole = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId), force: true }), sourceId);
    expect(whole).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await publishedRecords(sourceId)).toEqual(afterNight);
  });

  it('no-address: where an unchanged line holds a changed line\'s key, reads the file\'s records once for it, without hashing them, and quarantines the later line', async () => {
    const sourceId = 'no-address';
    const [header, ...lines] = await fileLines(nights[1], sourceId);
    const file = path.join(await tempDir('record-hashes-plans-duplicate'), 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.csv');
    await writeFile(file, [header, ...lines].join('\n') + '\n');
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file, force: true }), sourceId).outcome).toBe('published');

    // The same file with a second line for the tenth address, its text changed, at the end.
    const columns = header.toLowerCase().split(';');
    const tenth = lines[9].split(';');
    tenth[columns.indexOf('adressetekst')] += ' B';
    await writeFile(file, [header, ...lines, tenth.join(';')].join('\n') + '\n');
    explained.length = 0;
    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night).toMatchObject({ outcome: 'published', rowsUnchanged: lines.length, rowsStaged: 0, rowsRejected: 1 });

    const duplicateChecks = explained.filter((statement) => statement['Query Text'].includes('unchanged at position'));
    expect(duplicateChecks).toHaveLength(1);
    expect(tablesReadWhole(duplicateChecks[0].Plan).filter(isRecordsTable)).toHaveLength(1);
    expect(hashedRelations(duplicateChecks[0].Plan).filter(isRecordsTable)).toEqual([]);
  });
});
