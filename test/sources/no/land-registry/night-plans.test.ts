/**
 * A Norwegian land-register night (sources/no/land-registry/adapter.ts) stages only the blad whose
 * line changed. Its parties and persons must then be reached by key: the transactions and persons
 * the changed blad name. Written for a whole load, the parties' and persons' deletes compared every
 * Norwegian party and person with the live rows (3.5 and 2.2 s of a 14.1 s night at 0.25 ×
 * national, growing with the register rather than with the night).
 *
 * A sample this small is read whole whatever the statement, so the night runs beside 200,000 more
 * persons and parties, analyzed, as a national register's statistics make the planner weigh them.
 * PostgreSQL's auto_explain sends each statement's plan to the pipeline's connections as a notice.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample } from '../../../../sample/generate.js';
import { getPool } from '../../../../lib/db.js';
import { noLandRegistry } from '../../../../sources/no/land-registry/adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tablesDigest } from '../../../support/live-snapshot.js';
import { explainPipelineStatements, readsWithoutKey, type ExplainedStatement } from '../../../support/explained-plans.js';

const PARCELS = 300;
const SEED = 'no-land-registry-night-plans';
/** Persons, and parties naming them, added around the sample's (see beforeAll). */
const PADDING = 200_000;
const TABLES = ['owner', 'property_transaction', 'transaction_party', 'person'];
let pipeline: TestPipeline;
let input: string;
let night: ReturnType<typeof sourceOf>;
const explained: ExplainedStatement[] = [];

/** The night's statements that write parties or persons. */
const PARTY_AND_PERSON_WRITES = /^\s*(DELETE FROM|INSERT INTO|UPDATE) (transaction_party|person)\b/;
/**
 * The padded tables they read, each with the key a read must have a condition on (the others hold
 * the sample's few hundred rows, which a sequential scan reads as fast as an index).
 */
const KEYED_READS: Record<string, RegExp> = {
  transaction_party: /\b(transaction_id|person_id) = /,
  person: /\bperson_id = /,
};

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  input = path.join(sampleDir, noLandRegistry.inputFileName!);
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  await explainPipelineStatements(pipeline.databaseUrl, explained);
  expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: noLandRegistry.id, input }), noLandRegistry.id).outcome).toBe('published');
  // Persons of their own, each named by a party of a transaction no blad holds: the blad count
  // the night compares with its records stays the sample's, so the night is still an increment.
  await getPool().query(
    `INSERT INTO person (country, person_id, name, row_hash, published_run_id, updated_at)
     SELECT 'NO', 'pad-' || n, 'Pad ' || n, md5(n::text)::uuid, 'pad', now() FROM generate_series(1, $1) n`,
    [PADDING],
  );
  await getPool().query(
    `INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, person_id)
     SELECT 'NO', 'pad-transaction-' || n, 'BUYER', 1, 'PERSON', 'pad-' || n FROM generate_series(1, $1) n`,
    [PADDING],
  );
  await getPool().query('ANALYZE person, transaction_party');
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED, night: 1 });
  explained.length = 0; // the night's plans only
  night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: noLandRegistry.id, input }), noLandRegistry.id);
}, 600_000);
afterAll(async () => {
  await pipeline?.stop();
});

describe('a Norwegian land-register night', () => {
  it('reaches the parties and persons of its changed blad by key, not by reading the register', () => {
    expect(night).toMatchObject({ outcome: 'published' });
    expect(night.rowsUnchanged).toBeGreaterThan(0);
    expect(night.rowsStaged).toBeGreaterThan(0);
    const statements = explained.filter((statement) => PARTY_AND_PERSON_WRITES.test(statement['Query Text']));
    // The parties' delete and insert, the persons' update, insert and delete.
    expect(statements.length).toBeGreaterThanOrEqual(5);
    expect(readsWithoutKey(statements, KEYED_READS)).toEqual([]);
  });

  // The stage counts them to see that the published records describe live; validate's row-drop
  // check counted them again (1.5 s each in a night at 0.25 × national, on a shared machine).
  it('counts the live blad once', () => {
    const counts = explained.filter((statement) => /count\(\*\)::int AS n FROM \(\s*SELECT cadastre_id FROM owner/.test(statement['Query Text']));
    expect(counts).toHaveLength(1);
  });

  it('leaves what a whole load of the same file leaves', async () => {
    await getPool().query(`DELETE FROM transaction_party WHERE transaction_id LIKE 'pad-%'`);
    await getPool().query(`DELETE FROM person WHERE person_id LIKE 'pad-%'`);
    const afterNight = await tablesDigest(getPool(), TABLES, 'NO');
    const forced = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: noLandRegistry.id, input, force: true }), noLandRegistry.id);
    expect(forced).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(getPool(), TABLES, 'NO')).toEqual(afterNight);
  });
});
