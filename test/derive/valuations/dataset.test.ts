import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import seedrandom from 'seedrandom';
import { closePools, getPool, withTransaction } from '../../../lib/db.js';
import { comparables } from '../../../derive/comparables/dataset.js';
import { valuations } from '../../../derive/valuations/dataset.js';
import { evaluateCountry, renderEvaluationReport } from '../../../evaluations/valuations.js';
import type { DerivedDataset } from '../../../derive/dataset.js';
import { mergeDerived } from '../../../derive/publish.js';
import { expectedPrice, salePrice, type PricedProperty } from '../../../sample/price-model.js';
import { hashSeed } from '../../../sample/random.js';
import { createTestDatabase } from '../../support/database.js';
import { insertProperties, insertSales, type FixtureProperty } from '../../support/market-fixture.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const AS_OF = '2025-06-01';
const SEED = 'valuation-test';

// 400 houses in two towns 60 km apart, priced by the sample's hidden price model (not the AVM's
// form), 300 of them sold once between mid-2020 and May 2025.
interface House extends FixtureProperty { priced: PricedProperty }
const houses: House[] = [];
{
  const rng = seedrandom.alea(SEED);
  for (let i = 0; i < 400; i++) {
    const town = i % 2 ? { code: '0301', east: 262_000, north: 6_650_000 } : { code: '3401', east: 322_000, north: 6_650_000 };
    const east = town.east + (Math.floor(i / 2) % 15) * 60, north = town.north + Math.floor(i / 30) * 60;
    const sizeM2 = Math.round(60 + rng() * 200), builtYear = 1900 + Math.floor(rng() * 124), plotM2 = Math.round(400 + rng() * 1500);
    houses.push({
      cadastreId: `${town.code}-${1 + Math.floor(i / 2)}-1-0-0`, east, north, sizeM2, builtYear, plotM2, buildingType: '111',
      priced: { country: 'NO', east, north, municipalityCode: town.code, urban: town.code === '0301', use: 'HOUSE', floorAreaM2: sizeM2, plotAreaM2: plotM2, builtYear, leasehold: false },
    });
  }
}
const sold = houses.slice(0, 300);
const unsold = houses.slice(300);

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
  await insertProperties(pool, houses);
  const rng = seedrandom.alea(`${SEED}/sales`);
  await insertSales(pool, sold.map((h, i) => {
    const day = new Date(Date.UTC(2020, 6, 1) + Math.floor(rng() * 1_780) * 86_400_000).toISOString().slice(0, 10);
    return { id: `sale-${i}`, cadastreId: h.cadastreId, day, price: salePrice(SEED, h.priced, day, rng(), String(i)) };
  }));
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

async function derive(dataset: DerivedDataset, asOf = AS_OF) {
  return withTransaction(pool, async (client) => {
    await client.query(`CREATE TEMP TABLE staged (LIKE ${dataset.liveTable} INCLUDING DEFAULTS) ON COMMIT DROP`);
    await dataset.compute({ client, country: 'NO', asOf, stagingTable: 'staged', shared: { runId: randomUUID(), rebuild: true } });
    return mergeDerived(client, dataset, 'staged', 'NO');
  });
}

const liveValuations = async () => (await pool.query(`SELECT * FROM valuation ORDER BY cadastre_id`)).rows;

describe('valuations', () => {
  it('values every built property: estimate inside its interval, rent by the yield method, as of the day', async () => {
    await derive(comparables);
    expect(await derive(valuations)).toEqual({ inserted: 400, updated: 0, deleted: 0 });
    const rows = await liveValuations();
    expect(rows).toHaveLength(400);
    for (const v of rows) {
      expect(v).toMatchObject({ country: 'NO', currency: 'NOK', method: 'AVM' });
      expect(v.valued_at.toISOString()).toBe('2025-06-01T00:00:00.000Z');
      expect(v.value_low).toBeLessThan(v.value_estimate);
      expect(v.value_high).toBeGreaterThan(v.value_estimate);
      const house = houses.find((h) => h.cadastreId === v.cadastre_id)!;
      // A dwelling (bygningstype 1xx): 4 % gross yield on the unrounded value, per m² of usable area.
      expect(Math.abs(v.rent_estimate_per_m2_year - (v.value_estimate * 0.04) / house.sizeM2)).toBeLessThan(0.04 * 500 / house.sizeM2 + 1);
      expect(v.rent_low).toBeLessThan(v.rent_estimate_per_m2_year);
      expect(v.rent_high).toBeGreaterThan(v.rent_estimate_per_m2_year);
    }
  });

  it('estimates the unsold houses close to what the hidden model says they are worth', async () => {
    const rows = new Map((await liveValuations()).map((v) => [v.cadastre_id, v.value_estimate]));
    const errors = unsold.map((h) => Math.abs(rows.get(h.cadastreId)! / expectedPrice(hashSeed(SEED), h.priced, AS_OF) - 1)).sort((a, b) => a - b);
    const medianError = errors[errors.length >> 1];
    console.log(`valuations test: median error against the hidden model on ${errors.length} unsold houses ${(100 * medianError).toFixed(1)} %`);
    expect(medianError).toBeLessThan(0.12);
  });

  it('a re-run on unchanged inputs changes nothing', async () => {
    const before = await liveValuations();
    expect(await derive(comparables)).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect(await derive(valuations)).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect(await liveValuations()).toEqual(before);
  });

  it('computes the same rows whatever order the database reads its inputs in (plans, physical row order)', async () => {
    const compute = (dataset: DerivedDataset, settings: string[]) =>
      withTransaction(pool, async (client) => {
        for (const setting of settings) await client.query(`SET LOCAL ${setting}`);
        await client.query(`CREATE TEMP TABLE staged (LIKE ${dataset.liveTable} INCLUDING DEFAULTS) ON COMMIT DROP`);
        await dataset.compute({ client, country: 'NO', asOf: AS_OF, stagingTable: 'staged', shared: { runId: randomUUID(), rebuild: true } });
        // The columns a publish compares (not updated_at, which is the transaction's now()).
        const columns = [...dataset.keyColumns, ...dataset.valueColumns].join(', ');
        return (await client.query(`SELECT ${columns} FROM staged ORDER BY ${dataset.keyColumns.join(', ')}`)).rows;
      });
    const before = { comparables: await compute(comparables, []), valuations: await compute(valuations, []) };
    expect(before.valuations).toHaveLength(400);
    // Rewrite the inputs in another physical order and steer the planner to other join, aggregate and scan methods.
    for (const [table, index] of [['property_transaction', 'property_transaction_cadastre_idx'], ['building', 'building_cadastre_idx'], ['parcel', 'parcel_geom_idx'], ['property_comparables', 'property_comparables_pkey']]) {
      await pool.query(`CLUSTER ${table} USING ${index}`);
      await pool.query(`ANALYZE ${table}`);
    }
    const other = ['enable_hashjoin = off', 'enable_hashagg = off', 'enable_indexscan = off', 'enable_bitmapscan = off', 'max_parallel_workers_per_gather = 0'];
    expect(await compute(comparables, other)).toEqual(before.comparables);
    expect(await compute(valuations, other)).toEqual(before.valuations);
  });

  it('refuses to fit on too few sales, leaving the live valuations as they were', async () => {
    const before = await liveValuations();
    await expect(derive(valuations, '2019-01-01')).rejects.toThrow(/0 sales with a price in the five years before 2019-01-01; the model needs at least 30/);
    expect(await liveValuations()).toEqual(before);
  });

  it('evaluates on held-out sales and reports the ratio-study figures', async () => {
    const client = await pool.connect();
    try {
      const result = await evaluateCountry(client, 'NO', AS_OF);
      // One sale in five held out (by id hash), the rest trained on.
      expect(result.accuracy.count + result.fit.trainingSales).toBe(300);
      expect(result.accuracy.count).toBeGreaterThan(40);
      expect(result.accuracy.count).toBeLessThan(80);
      expect(result.accuracy.medianAbsolutePercentageError).toBeGreaterThan(0);
      expect(result.fit.lowLog).toBeLessThan(0);
      expect(result.fit.highLog).toBeGreaterThan(0);
      const report = renderEvaluationReport([result], { command: 'nordprop evaluate-valuations --as-of 2025-06-01', producedAt: '2025-06-01', sample: 'on a test market' });
      expect(report).toContain(`| median absolute percentage error | ${result.accuracy.medianAbsolutePercentageError.toFixed(1)} % | ≤ 8 % |`);
      expect(report).toContain(`| PRD | ${result.accuracy.prd.toFixed(3)} | 0.98–1.03 |`);
    } finally {
      client.release();
    }
  });
});
