import { beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import seedrandom from 'seedrandom';
import { deriveDataset, planDerive, type DeriveRequest } from '../../activities/derive.js';
import type { SourceRunSummary } from '../../activities/types.js';
import { getPool } from '../../lib/db.js';
import { activityTestDatabase } from '../support/database.js';
import { insertProperties, insertSales, type FixtureProperty } from '../support/market-fixture.js';

/**
 * Comparables and valuations both weigh the country's property features (derive/cached-inputs.ts):
 * built once per run, reused by later runs while the registers are unchanged, built again when a
 * source published a change, when `nordprop derive` asks, and when the database emptied the table.
 */
let run = 0;

// 80 houses in one town, 60 of them sold once in the five years before the first asOf.
const houses: FixtureProperty[] = [];
{
  const rng = seedrandom.alea('cached-inputs');
  for (let i = 0; i < 80; i++) {
    houses.push({ cadastreId: `0301-${1 + i}-1-0-0`, east: 262_000 + (i % 10) * 70, north: 6_650_000 + Math.floor(i / 10) * 70, sizeM2: Math.round(60 + rng() * 200), builtYear: 1950 + (i % 60), plotM2: 600 + (i % 7) * 100 });
  }
}
const CHANGED = houses[0].cadastreId;

activityTestDatabase();
beforeAll(async () => {
  await insertProperties(getPool(), houses);
  await insertSales(getPool(), houses.slice(0, 60).map((h, i) => ({ id: `sale-${i}`, cadastreId: h.cadastreId, day: `202${1 + (i % 4)}-0${1 + (i % 9)}-15`, price: h.sizeM2 * (40_000 + (i % 13) * 1_000) })));
});

/** One derive run of comparables then valuations for Norway, as the workflow runs them. */
async function deriveRun(asOf: string, options: { nightly: boolean }): Promise<Record<'comparables' | 'valuations', Derived>> {
  const runId = `cached-inputs-${run++}`;
  await planDerive({ runId, workflowId: 'test', countries: ['NO'], datasets: ['comparables', 'valuations'] });
  return { comparables: await derive(runId, 'comparables', asOf, options), valuations: await derive(runId, 'valuations', asOf, options) };
}

/** A dataset's ledger entry, with what `nordprop runs show` gives of its figures. */
interface Derived extends SourceRunSummary {
  stats: { propertyFeatures: 'built' | 'reused'; builtProperties: number };
}

async function derive(runId: string, datasetId: 'comparables' | 'valuations', asOf: string, options: { nightly: boolean }): Promise<Derived> {
  const request: DeriveRequest = { runId, datasetId, country: 'NO', asOf, skipUnchanged: options.nightly };
  const summary: SourceRunSummary = await new MockActivityEnvironment().run(deriveDataset, request);
  expect(summary.outcome).toBe('published');
  const details = await getPool().query(`SELECT details FROM source_run WHERE run_id = $1 AND source_id = $2`, [runId, summary.sourceId]);
  return { ...summary, stats: details.rows[0].details.stats };
}

const featuresOf = (result: Derived) => result.stats.propertyFeatures;
const liveValuations = async () => (await getPool().query(`SELECT cadastre_id, value_estimate, value_low, value_high FROM valuation ORDER BY cadastre_id`)).rows;
const comparablePrices = async () =>
  (await getPool().query(`SELECT cadastre_id, prices_per_m2 FROM property_comparables ORDER BY cadastre_id`)).rows.map((r) => `${r.cadastre_id} ${r.prices_per_m2.join(',')}`);

describe('the property features comparables and valuations share', () => {
  it('are built by the first dataset of a run and read by the next, with the result a computation of its own gives', async () => {
    const first = await deriveRun('2025-06-01', { nightly: false });
    expect(featuresOf(first.comparables)).toBe('built');
    expect(featuresOf(first.valuations)).toBe('reused');
    expect(first.valuations.stats.builtProperties).toBe(80);
    const valued = await liveValuations();
    expect(valued).toHaveLength(80);

    // Valuations alone in a run of its own builds the features again and changes nothing.
    const runId = `cached-inputs-${run++}`;
    await planDerive({ runId, workflowId: 'test', countries: ['NO'], datasets: ['valuations'] });
    const alone = await derive(runId, 'valuations', '2025-06-01', { nightly: false });
    expect(featuresOf(alone)).toBe('built');
    expect(alone).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await liveValuations()).toEqual(valued);
  });

  it('a nightly run for a new day reads the features an earlier run built while no source published a change', async () => {
    const night = await deriveRun('2025-06-02', { nightly: true });
    expect(featuresOf(night.comparables)).toBe('reused');
    expect(featuresOf(night.valuations)).toBe('reused');
  });

  it('are built again after a source published a change, and the datasets see it', async () => {
    const before = await comparablePrices();
    // A house grew (its bruksenhet and building): its sale's price per m² falls in its neighbours' comparables.
    await getPool().query(`UPDATE unit SET usable_area_m2 = usable_area_m2 * 2 WHERE cadastre_id = $1`, [CHANGED]);
    await getPool().query(`UPDATE building_detail SET usable_area_m2 = usable_area_m2 * 2 WHERE cadastre_id = $1`, [CHANGED]);
    await getPool().query(`INSERT INTO run (run_id, kind, sources) VALUES ('matrikkel-night', 'nightly', '{no-matrikkel-detail}')`);
    await getPool().query(
      `INSERT INTO source_run (run_id, source_id, country, outcome, updated, finished_at) VALUES ('matrikkel-night', 'no-matrikkel-detail', 'NO', 'published', 1, now())`,
    );
    const night = await deriveRun('2025-06-03', { nightly: true });
    expect(featuresOf(night.comparables)).toBe('built');
    expect(featuresOf(night.valuations)).toBe('reused');
    expect(night.comparables.updated).toBeGreaterThan(0);
    expect(await comparablePrices()).not.toEqual(before);
  });

  it('`nordprop derive` builds them again although no source changed (it must see an edit made by hand)', async () => {
    await getPool().query(`UPDATE unit SET usable_area_m2 = usable_area_m2 / 2 WHERE cadastre_id = $1`, [CHANGED]);
    await getPool().query(`UPDATE building_detail SET usable_area_m2 = usable_area_m2 / 2 WHERE cadastre_id = $1`, [CHANGED]);
    const nightly = await deriveRun('2025-06-04', { nightly: true });
    expect(featuresOf(nightly.comparables)).toBe('reused'); // the ledger cannot see a hand edit
    const forced = await deriveRun('2025-06-04', { nightly: false });
    expect(featuresOf(forced.comparables)).toBe('built');
    expect(featuresOf(forced.valuations)).toBe('reused');
    expect(forced.comparables.updated).toBeGreaterThan(0);
  });

  it('are built again, not read as empty, when the database lost the rows of the UNLOGGED table', async () => {
    const valued = await liveValuations();
    await getPool().query(`TRUNCATE derive_cache.property_features_no`); // what crash recovery does to an UNLOGGED table
    const night = await deriveRun('2025-06-05', { nightly: true });
    expect(featuresOf(night.comparables)).toBe('built');
    expect(night.comparables).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
    // A new day: valued_at moves, the values do not, and none is lost.
    expect(night.valuations).toMatchObject({ inserted: 0, updated: 80, deleted: 0 });
    expect(await liveValuations()).toEqual(valued);
  });
});
