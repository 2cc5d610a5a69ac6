/**
 * A publish's parcel links (sources/publish/parcel-links.ts) at the proportions of a national
 * register: thousands of changed parcels among tens of thousands. The parcel merge has just
 * marked them with the run's id, which the planner's statistics do not know; joined to the
 * staged parcels by a nested loop, each changed parcel read the whole staging table (3,268
 * changed Swedish areas: 10.7 M rows compared, 1.9 s at 0.05 x national).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relinkChangedParcels } from '../../../sources/publish/parcel-links.js';
import { createTestDatabase } from '../../support/database.js';
import { explainEachStatement, scansPerRow, tablesReadWhole, type ExplainedStatement } from '../../support/explained-plans.js';

const PARCELS = 60_000;
const CHANGED = 3_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // The store before: every parcel published by run r-first, one link each, analyzed.
  await pool.query(
    `INSERT INTO parcel (country, parcel_id, municipality_code, geom, area_m2, source_srid, row_hash, published_run_id)
     SELECT 'SE', 'area-' || i, '0114', ST_Multi(ST_MakeEnvelope(18 + i * 1e-5, 59, 18 + i * 1e-5 + 5e-6, 59.00001, 4326)), 10, 3006, md5(i::text)::uuid, 'r-first'
     FROM generate_series(1, $1) i`,
    [PARCELS],
  );
  await pool.query(`INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel) SELECT 'SE', parcel_id, 'property-of-' || parcel_id, true FROM parcel`);
  await pool.query(`ANALYZE parcel, parcel_property`);
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/**
 * A run's staging table of every 20th parcel from `first` (wide rows, a geometry and more, as
 * staged parcels are: the table spans many pages), each under a property of the run; the first
 * `unchanged` of them staged as they are live, the others written by the merge.
 */
async function stageRun(runId: string, first: number, unchanged: number): Promise<string> {
  const table = `staging_${runId.replace(/-/g, '_')}`;
  await pool.query(`CREATE TABLE ${table} (parcel_id text NOT NULL, cadastre_id text NOT NULL, geom geometry NOT NULL)`);
  await pool.query(
    `INSERT INTO ${table} SELECT 'area-' || i, CASE WHEN n <= $3 THEN 'property-of-area-' || i ELSE $4 || '-' || i END, ST_Buffer(ST_Point(18 + i * 1e-5, 59), 1e-6, 8)
     FROM generate_series($1::int, $1::int + ($2::int - 1) * 20, 20) WITH ORDINALITY AS g(i, n)`,
    [first, CHANGED, unchanged, runId],
  );
  await pool.query(`ANALYZE ${table}`);
  await pool.query(`UPDATE parcel p SET published_run_id = $1 FROM ${table} s WHERE p.country = 'SE' AND p.parcel_id = s.parcel_id AND s.cadastre_id LIKE $1 || '-%'`, [runId]);
  return table;
}

/** Runs relinkChangedParcels in a transaction, with the plans of its statements. */
async function relink(runId: string, stagingTable: string, removedKeys?: string, isMainParcel = 'true') {
  const client = await pool.connect();
  const explained: ExplainedStatement[] = [];
  try {
    await explainEachStatement(client, explained);
    await client.query('BEGIN');
    const counts = await relinkChangedParcels(client, { stagingTable, cadastreId: 's.cadastre_id', isMainParcel }, { country: 'SE', municipalities: null }, runId, removedKeys);
    await client.query('COMMIT');
    const relinks = explained.filter((statement) => /^\s*(INSERT INTO|DELETE FROM) parcel_property/.test(statement['Query Text']));
    return { counts, relinks, perRow: relinks.flatMap((statement) => scansPerRow(statement.Plan)) };
  } finally {
    client.release();
  }
}

const linksOf = async (cadastrePattern: string) =>
  (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM parcel_property WHERE country = 'SE' AND cadastre_id LIKE $1`, [cadastrePattern])).rows[0].n;

describe('relinkChangedParcels', () => {
  it('re-links a whole snapshot\'s changed parcels without reading a table once per parcel', async () => {
    const staging = await stageRun('r-snapshot', 20, 0);
    const { counts, relinks, perRow } = await relink('r-snapshot', staging);
    expect(counts).toEqual({ inserted: CHANGED, updated: 0, deleted: CHANGED });
    expect([await linksOf('r-snapshot-%'), await linksOf('%')]).toEqual([CHANGED, PARCELS]);
    expect(relinks.length).toBe(2);
    expect(perRow).toEqual([]);
  });

  it('on a night, re-links the changed parcels and unlinks the removed ones, by their keys alone', async () => {
    // 100 of the staged parcels are unchanged (their links stay); 500 parcels left the register.
    const staging = await stageRun('r-night', 5, 100);
    await pool.query(`CREATE TABLE removed_keys AS SELECT 'area-' || i AS parcel_id FROM generate_series(7, 7 + 499 * 100, 100) i`);
    await pool.query(`DELETE FROM parcel p USING removed_keys r WHERE p.country = 'SE' AND p.parcel_id = r.parcel_id`);
    const { counts, relinks, perRow } = await relink('r-night', staging, 'removed_keys');
    expect(counts).toEqual({ inserted: CHANGED - 100, updated: 0, deleted: CHANGED - 100 + 500 });
    expect([await linksOf('r-night-%'), await linksOf('r-snapshot-%'), await linksOf('%')]).toEqual([CHANGED - 100, CHANGED, PARCELS - 500]);
    const orphans = await pool.query(`SELECT count(*)::int AS n FROM parcel_property l WHERE NOT EXISTS (SELECT 1 FROM parcel p WHERE p.country = l.country AND p.parcel_id = l.parcel_id)`);
    expect(orphans.rows[0].n).toBe(0);
    // The removed parcels' links, the staged parcels' links, the new links.
    expect(relinks.length).toBe(3);
    expect(perRow).toEqual([]);
    // The unlinking reads the links and parcels of the staged and removed keys, not all of them.
    const unlinks = relinks.filter((statement) => /^\s*DELETE/.test(statement['Query Text']));
    expect(unlinks.flatMap((unlink) => tablesReadWhole(unlink.Plan).filter((table) => table === 'parcel_property' || table === 'parcel'))).toEqual([]);
  });

  // Most of a night's changed parcels changed in other columns only (a date, a version): their
  // links are the same rows, and writing them again cost the publish a delete and an insert each.
  it.each([
    ['a night', 3, true],
    ['a snapshot', 9, false],
  ])('on %s, leaves the links of a rewritten parcel untouched where they are the same, and writes only those that differ', async (_, residue, night) => {
    const runId = `r-same-${residue}`;
    const table = `staging_same_${residue}`;
    // 200 parcels no earlier case touched, all rewritten by the merge: 150 with the same link,
    // 30 whose link stops being the main one, 20 under another property.
    await pool.query(`CREATE TABLE ${table} (parcel_id text NOT NULL, cadastre_id text NOT NULL, is_main boolean NOT NULL)`);
    await pool.query(
      `INSERT INTO ${table} SELECT 'area-' || i, CASE WHEN n > 180 THEN 'moved-to-' || i ELSE 'property-of-area-' || i END, n <= 150
       FROM generate_series($1::int, $1::int + 199 * 20, 20) WITH ORDINALITY AS g(i, n)`,
      [residue],
    );
    await pool.query(`ANALYZE ${table}`);
    await pool.query(`UPDATE parcel p SET published_run_id = $1 FROM ${table} s WHERE p.country = 'SE' AND p.parcel_id = s.parcel_id`, [runId]);
    const linksOfStaged = `SELECT l.parcel_id, l.cadastre_id, l.is_main_parcel, l.xmin::text AS version FROM parcel_property l JOIN ${table} s ON l.country = 'SE' AND l.parcel_id = s.parcel_id ORDER BY 1, 2`;
    const before = (await pool.query(linksOfStaged)).rows;
    if (night) await pool.query(`CREATE TABLE removed_none (parcel_id text NOT NULL)`);

    const { counts, perRow } = await relink(runId, table, night ? 'removed_none' : undefined, 's.is_main');

    expect(counts).toEqual({ inserted: 50, updated: 0, deleted: 50 });
    const after = (await pool.query(linksOfStaged)).rows;
    const staged = (await pool.query(`SELECT parcel_id, cadastre_id, is_main AS is_main_parcel FROM ${table} ORDER BY 1, 2`)).rows;
    expect(after.map(({ version: _version, ...link }) => link)).toEqual(staged);
    // The 150 unchanged links are the very rows they were: not deleted and inserted again.
    const untouched = after.filter((link) => before.some((was) => was.parcel_id === link.parcel_id && was.cadastre_id === link.cadastre_id && was.version === link.version));
    expect(untouched.length).toBe(150);
    expect(perRow).toEqual([]);
    expect(await linksOf('%')).toBe(PARCELS - 500);
    if (night) await pool.query(`DROP TABLE removed_none`);
  });
});
