/**
 * A night's child rows (sources/publish/child-rows.ts): a Norwegian building's status history and
 * unit links (no-building), a building detail's floors (no-matrikkel-detail). A night stages only
 * the records whose line changed, and must then reach the children of those parents by key.
 * Written for a whole load, the children's delete compared every child of the country with its
 * parent, so a night's publish grew with the register rather than with the night.
 *
 * A sample this small is read whole whatever the statement, so the night runs beside 100,000 more
 * children of each table, analyzed, as a national register's statistics make the planner weigh
 * them (children of buildings no file holds: a night leaves them, a whole load removes them).
 * PostgreSQL's auto_explain sends each statement's plan to the pipeline's connections as a notice.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample } from '../../../sample/generate.js';
import { getPool } from '../../../lib/db.js';
import { noBuilding } from '../../../sources/no/building/adapter.js';
import { noMatrikkelDetail } from '../../../sources/no/matrikkel-detail/adapter.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../support/runs.js';
import { tablesDigest } from '../../support/live-snapshot.js';
import { explainPipelineStatements, readsWithoutKey, type ExplainedStatement } from '../../support/explained-plans.js';

const PARCELS = 400;
const SEED = 'child-rows-night';
/** Children added to each child table, of parents no file holds. */
const PADDING = 100_000;
const PAD = 'pad-';
const SOURCES = [noBuilding, noMatrikkelDetail];
/** Each child table, with the column naming its parent: what its night's reads must have a condition on. */
const CHILDREN: Record<string, RegExp> = {
  building_status_history: /\bbuilding_id = /,
  building_unit_link: /\bbuilding_id = /,
  building_floor: /\bbuilding_number = /,
};
const TABLES = ['building', 'building_detail', 'section', 'unit', ...Object.keys(CHILDREN)];
/** The night's statements that write a child table. */
const CHILD_WRITES = new RegExp(`^\\s*(DELETE FROM|INSERT INTO) (${Object.keys(CHILDREN).join('|')})\\b`);

let pipeline: TestPipeline;
let sampleDir: string;
const nights: Record<string, ReturnType<typeof sourceOf>> = {};
const explained: ExplainedStatement[] = [];

const inputOf = (source: (typeof SOURCES)[number]) => path.join(sampleDir, source.inputFileName!);

beforeAll(async () => {
  pipeline = await startPipeline();
  sampleDir = path.join(pipeline.dataDir, 'sample');
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  await explainPipelineStatements(pipeline.databaseUrl, explained);
  for (const source of SOURCES) {
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: inputOf(source) }), source.id).outcome).toBe('published');
  }
  const pool = getPool();
  await pool.query(
    `INSERT INTO building_status_history (country, building_id, seq, status) SELECT 'NO', '${PAD}' || n, 1, 'TATT_I_BRUK' FROM generate_series(1, $1) n`,
    [PADDING],
  );
  await pool.query(`INSERT INTO building_unit_link (country, building_id, bruksenhet_id) SELECT 'NO', '${PAD}' || n, 'u' || n FROM generate_series(1, $1) n`, [PADDING]);
  await pool.query(
    `INSERT INTO building_floor (country, building_number, floor_number, floor_kind) SELECT 'NO', '${PAD}' || n, 1, 'H' FROM generate_series(1, $1) n`,
    [PADDING],
  );
  await pool.query(`ANALYZE ${Object.keys(CHILDREN).join(', ')}`);
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED, night: 1 });
  explained.length = 0; // the nights' plans only
  for (const source of SOURCES) {
    nights[source.id] = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: inputOf(source) }), source.id);
  }
}, 600_000);
afterAll(async () => {
  await pipeline?.stop();
});

describe('a night of the Norwegian buildings and their details', () => {
  it('stages only its changed records', () => {
    for (const source of SOURCES) {
      expect(nights[source.id], source.id).toMatchObject({ outcome: 'published' });
      expect(nights[source.id].rowsUnchanged, source.id).toBeGreaterThan(0);
      expect(nights[source.id].rowsStaged, source.id).toBeGreaterThan(0);
    }
  });

  it('reaches the children of its changed parents by key, not by reading every child of the country', () => {
    const statements = explained.filter((statement) => CHILD_WRITES.test(statement['Query Text']));
    // Each child table's two deletes (the staged parents', the removed ones') and its insert.
    expect(statements.length).toBeGreaterThanOrEqual(3 * Object.keys(CHILDREN).length);
    expect(readsWithoutKey(statements, CHILDREN)).toEqual([]);
  });

  it('leaves the children of parents it did not touch, and what a whole load of the same files leaves', async () => {
    const pool = getPool();
    for (const table of Object.keys(CHILDREN)) {
      const column = table === 'building_floor' ? 'building_number' : 'building_id';
      const padded = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} LIKE '${PAD}%'`);
      expect(padded.rows[0].n, table).toBe(PADDING);
      await pool.query(`DELETE FROM ${table} WHERE ${column} LIKE '${PAD}%'`);
    }
    const afterNight = await tablesDigest(pool, TABLES, 'NO');
    for (const source of SOURCES) {
      const forced = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: inputOf(source), force: true }), source.id);
      expect(forced, source.id).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    }
    expect(await tablesDigest(pool, TABLES, 'NO')).toEqual(afterNight);
  });
});
