/**
 * A Swedish cadastre night (sources/se/cadastre/adapter.ts) recomputes the properties its changed
 * areas touch: it collects them, sums their areas, checks them against the unchanged areas, finds
 * those left without areas and merges them into `property_register`. Each of those statements must
 * reach the properties, their areas and their published rows by key: planned as joins, they
 * hashed every Swedish property and parcel link (0.4 s of a night at 0.05 × national, where a
 * national register holds 3.5 M properties).
 *
 * A sample this small is read whole whatever the statement, so the night runs beside 200,000
 * more Swedish properties and parcel links, analyzed, as a national register's statistics make the
 * planner weigh it; a statement that then still reads one of the tables without a condition on its
 * key reads the register (written as joins, the snapshot of the touched properties read every
 * Swedish property). PostgreSQL's auto_explain sends each statement's plan to the pipeline's
 * connections as a notice.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample } from '../../../sample/generate.js';
import { getPool } from '../../../lib/db.js';
import { seCadastre } from '../../../sources/se/cadastre/adapter.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../support/runs.js';
import { explainPipelineStatements, readsWithoutKey, type ExplainedStatement } from '../../support/explained-plans.js';

const PARCELS = 300;
const SEED = 'se-cadastre-night-plans';
/** Properties added around the sample's (see beforeAll). */
const PADDING = 200_000;
let pipeline: TestPipeline;
let night: ReturnType<typeof sourceOf>;
const explained: ExplainedStatement[] = [];

/** The night's statements over the touched properties (their temp tables' names). */
const NIGHT_STATEMENTS = /\bse_touched_property\b|\bse_property_snapshot\b|\bse_emptied_property\b/;
/** The tables they read, each with the key a read must have a condition on. */
const KEYED_READS: Record<string, RegExp> = {
  parcel: /\bparcel_id = /,
  parcel_property: /\b(parcel_id|cadastre_id) = /,
  property_register: /\b(cadastre_id|register_ref) = /,
};

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  const input = path.join(sampleDir, seCadastre.inputFileName);
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  await explainPipelineStatements(pipeline.databaseUrl, explained);
  expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: seCadastre.id, input }), seCadastre.id).outcome).toBe('published');
  // A register of national proportions around the sample's few hundred properties: properties
  // and parcel links of their own (no parcel, so the night still finds the sample's records
  // describing live), analyzed, so that the planner weighs the night's statements as it would there.
  await getPool().query(
    `INSERT INTO property_register (country, cadastre_id, register_ref, designation, municipality_code, property_type, area_m2, plot_count, row_hash, published_run_id, updated_at)
     SELECT 'SE', 'SE_PAD_' || n, 'pad-' || n, 'PAD ' || n, '0000', 'FASTIGHET', 1000, 1, md5(n::text)::uuid, 'pad', now() FROM generate_series(1, $1) n`,
    [PADDING],
  );
  await getPool().query(`INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel) SELECT 'SE', 'pad-parcel-' || n, 'SE_PAD_' || n, true FROM generate_series(1, $1) n`, [PADDING]);
  await getPool().query('ANALYZE property_register, parcel_property');
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED, night: 1 });
  explained.length = 0; // the night's plans only
  night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: seCadastre.id, input }), seCadastre.id);
}, 600_000);
afterAll(async () => {
  await pipeline?.stop();
});

describe('a Swedish cadastre night', () => {
  it('reaches the properties its changed areas touch by key, not by reading the register', () => {
    // An increment: some areas changed, the rest read as unchanged and not parsed.
    expect(night).toMatchObject({ outcome: 'published' });
    expect(night.rowsUnchanged).toBeGreaterThan(0);
    expect(night.rowsStaged).toBeGreaterThan(0);
    const statements = explained.filter((statement) => NIGHT_STATEMENTS.test(statement['Query Text']));
    // Collecting them, their snapshot, the check against unchanged areas, the emptied ones, the
    // re-designation, and the merge's update, insert and delete.
    expect(statements.length).toBeGreaterThanOrEqual(7);
    expect(readsWithoutKey(statements, KEYED_READS)).toEqual([]);
  });
});
