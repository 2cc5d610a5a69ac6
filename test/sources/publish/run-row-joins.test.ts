/**
 * The publish statements that join the rows their run wrote (`x.published_run_id = <run>`: the
 * children of changed parcels, buildings, details, transactions, companies and plans), and those
 * that remove the live rows a snapshot lacks right after inserting, must not plan a nested loop
 * that reads a table whole once per row. The planner's statistics never know the new run's id,
 * nor the rows just inserted, so it expects one such row; a nested loop over the staging table
 * was then quadratic in the rows a night changed, or a first load inserted
 * (sources/publish/merge-table.ts, withHashJoins).
 *
 * Every source of the sample is loaded (night 0), then its next night (about 2 % changed,
 * sample/night.ts), with PostgreSQL's auto_explain sending each statement's plan to the pipeline's
 * connections as a notice.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample } from '../../../sample/generate.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runRefresh } from '../../support/runs.js';
import { explainPipelineStatements, scansPerRow, type ExplainedStatement } from '../../support/explained-plans.js';

const PARCELS = 300;
const SEED = 'run-row-joins';
let pipeline: TestPipeline;

const explained: ExplainedStatement[] = [];

/**
 * Statements planned from statistics that predate the run's writes: a join of a live table's rows
 * by the run that wrote them (not the SET of an UPDATE, which names no alias), and the anti-join
 * that removes the live rows a snapshot lacks, right after its insert.
 */
const JOINS_RUN_ROWS = /\w\.published_run_id\s*(=|<>)\s*\$\d|^\s*DELETE FROM \w+ live\b[\s\S]*NOT EXISTS \(SELECT 1 FROM staging\./;

beforeAll(async () => {
  pipeline = await startPipeline();
  process.env.NORDPROP_INPUT_DIR = path.join(pipeline.dataDir, 'sample');
  await generateSample({ outDir: process.env.NORDPROP_INPUT_DIR, parcels: PARCELS, seed: SEED });
  // Every new session of the test database explains each statement to its client (a NOTICE).
  await explainPipelineStatements(pipeline.databaseUrl, explained);
  for (const night of [0, 1]) {
    if (night) await generateSample({ outDir: process.env.NORDPROP_INPUT_DIR, parcels: PARCELS, seed: SEED, night });
    const run = await runRefresh(pipeline.client, pipeline.taskQueue, { derive: false });
    expect([night, run.outcome]).toEqual([night, 'succeeded']);
  }
}, 600_000);
afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  await pipeline?.stop();
});

describe('publish statements that join the rows their run wrote, or remove what its snapshot lacks', () => {
  it('join them by hashing, on a first load and on a changed night, in every source', () => {
    const joins = explained.filter((statement) => JOINS_RUN_ROWS.test(statement['Query Text']));
    // The statements of parcel links (both countries), building children, floors, parties (both
    // countries), company addresses (both countries), zoning plan documents and live rows gone
    // from a snapshot, each explained.
    const tables = new Set(joins.map((statement) => statement['Query Text'].match(/(?:INSERT INTO|DELETE FROM|CREATE TEMP TABLE)\s+(\w+)/)?.[1]));
    expect([...tables].sort()).toEqual(expect.arrayContaining([
      'area', 'building_floor', 'building_status_history', 'building_unit_link', 'company_address', 'municipality', 'parcel_property', 'transaction_party', 'zoning_plan_document',
    ]));
    const perRow = joins.flatMap((statement) => scansPerRow(statement.Plan).map((finding) => `${finding}: ${statement['Query Text'].trim().split('\n')[0]}`));
    expect(perRow).toEqual([]);
  });
});
