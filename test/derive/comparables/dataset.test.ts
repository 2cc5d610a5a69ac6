import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool, withTransaction } from '../../../lib/db.js';
import { comparables } from '../../../derive/comparables/dataset.js';
import { similarity } from '../../../derive/comparables/similarity.js';
import { mergeDerived } from '../../../derive/publish.js';
import { createTestDatabase } from '../../support/database.js';
import { insertProperties, insertSales, type FixtureProperty } from '../../support/market-fixture.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const AS_OF = '2025-06-01';

// Town: subject 0301-1-1 at (500000, 6600000) and identical houses sold around it.
const TOWN = { east: 500_000, north: 6_600_000 };
const house = (cadastreId: string, dx: number, dy: number, extra: Partial<FixtureProperty> = {}): FixtureProperty => ({
  cadastreId, east: TOWN.east + dx, north: TOWN.north + dy, sizeM2: 120, buildingType: '111', builtYear: 1990, ...extra,
});
// Countryside: subject 3401-1-1 150 km east, sales 0.8 to 7 km away.
const FAR = { east: 650_000, north: 6_600_000 };
const farm = (cadastreId: string, dx: number): FixtureProperty => ({ cadastreId, east: FAR.east + dx, north: FAR.north, sizeM2: 150, buildingType: '111', builtYear: 1970 });

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
  await insertProperties(pool, [
    house('0301-1-1-0-0', 0, 0),
    house('0301-1-2-0-0', 100, 0),
    house('0301-1-3-0-0', 0, 200),
    house('0301-1-4-0-0', -300, 0),
    house('0301-1-5-0-0', 0, -400),
    house('0301-1-6-0-0', 250, 250),
    house('0301-1-7-0-0', 2_000, 0), // identical, but beyond the 500 m that already holds five
    house('0301-1-8-0-0', 150, 0), // sold six years ago: outside the window
    house('0301-1-9-0-0', -150, 0), // sold after asOf
    house('0301-1-10-0-0', 0, 120), // half a share sold
    house('0301-1-11-0-0', 60, 60, { sizeM2: 400, buildingType: '311', builtYear: 1890 }), // near, but unlike
    house('0301-1-12-0-0', 10, 10, { sizeM2: 0 }), // no floor area: no comparables, not a comparable
    farm('3401-1-1-0-0', 0),
    farm('3401-1-2-0-0', 800),
    farm('3401-1-3-0-0', -1_500),
    farm('3401-1-4-0-0', 3_000),
    farm('3401-1-5-0-0', -4_000),
    farm('3401-1-6-0-0', 4_500),
    farm('3401-1-7-0-0', 7_000),
  ]);
  const sale = (n: number, cadastreId: string, day = '2024-03-01', price = 4_800_000) => ({ id: `t${n}`, cadastreId, day, price });
  await insertSales(pool, [
    sale(2, '0301-1-2-0-0'), sale(3, '0301-1-3-0-0'), sale(4, '0301-1-4-0-0'), sale(5, '0301-1-5-0-0'), sale(6, '0301-1-6-0-0'),
    sale(7, '0301-1-7-0-0'),
    sale(8, '0301-1-8-0-0', '2019-05-01'),
    sale(9, '0301-1-9-0-0', '2025-07-01'),
    { ...sale(10, '0301-1-10-0-0'), share: [1, 2] },
    sale(11, '0301-1-11-0-0', '2024-03-01', 9_000_000),
    sale(12, '0301-1-12-0-0'),
    sale(13, '0301-1-1-0-0', '2023-01-01'), // the subject's own sale: a comparable of others, never of itself
    { ...sale(14, '0301-1-2-0-0', '2022-01-01'), kind: 'GIFT' },
    sale(22, '3401-1-2-0-0'), sale(23, '3401-1-3-0-0'), sale(24, '3401-1-4-0-0'), sale(25, '3401-1-5-0-0'), sale(26, '3401-1-6-0-0'), sale(27, '3401-1-7-0-0'),
  ]);
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

async function computeAndPublish() {
  return withTransaction(pool, async (client) => {
    await client.query(`CREATE TEMP TABLE staged (LIKE property_comparables INCLUDING DEFAULTS) ON COMMIT DROP`);
    await comparables.compute({ client, country: 'NO', asOf: AS_OF, stagingTable: 'staged', shared: { runId: randomUUID(), rebuild: true } });
    return mergeDerived(client, comparables, 'staged', 'NO');
  });
}

const comparablesOf = async (cadastreId: string) =>
  (await pool.query(
    `SELECT transaction_id, distance_m, price_per_m2_amount, price_per_m2_currency, similarity FROM comparable_transaction
     WHERE country = 'NO' AND cadastre_id = $1 ORDER BY similarity DESC, distance_m, transaction_id`,
    [cadastreId],
  )).rows;

/** The similarity of an identical property at d metres (comparable_similarity's weights). */
const identicalAt = (d: number) => Math.round((0.35 / (1 + d / 750) + 0.25 + 0.15 + 0.15 + 0.1) * 1e4) / 1e4;

describe('comparables', () => {
  it('in town: the most similar sales of the last five years within 500 m, nearest first among equals', async () => {
    expect(await computeAndPublish()).toMatchObject({ updated: 0, deleted: 0 });
    const rows = await comparablesOf('0301-1-1-0-0');
    // Five identical houses within 500 m, so the radius stays at 500 m: t7 (2 km) is not taken.
    // Not taken either: the sale of six years ago, the one after asOf, half a share, a gift,
    // the property without floor area, and the subject's own sale.
    expect(rows.map((r) => r.transaction_id)).toEqual(['t2', 't3', 't4', 't6', 't5', 't11']);
    expect(rows.map((r) => r.distance_m)).toEqual([100, 200, 300, 353.55, 400, 84.85]);
    for (const r of rows.slice(0, 5)) expect(r.similarity).toBeCloseTo(identicalAt(r.distance_m), 4);
    // The shop next door is nearest, but unlike in size, type and age: last.
    expect(rows[5].similarity).toBeLessThan(rows[4].similarity);
    expect(rows[0]).toMatchObject({ price_per_m2_amount: 40_000, price_per_m2_currency: 'NOK' });
    expect(await comparablesOf('0301-1-12-0-0')).toEqual([]);
  });

  it('in the countryside: the radius widens in steps until five are found', async () => {
    const rows = await comparablesOf('3401-1-1-0-0');
    // 0.8, 1.5, 3, 4 and 4.5 km: the fifth is within 5 km, so the 7 km sale stays out.
    expect(rows.map((r) => r.transaction_id).sort()).toEqual(['t22', 't23', 't24', 't25', 't26']);
    expect(Math.max(...rows.map((r) => r.distance_m))).toBe(4_500);
    expect(rows.map((r) => r.transaction_id)).toEqual(['t22', 't23', 't24', 't25', 't26']); // identical farms: nearest first
  });

  it('every similarity is in [0, 1]', async () => {
    const { rows } = await pool.query(`SELECT min(similarity) AS low, max(similarity) AS high, count(*) AS n FROM comparable_transaction`);
    expect(rows[0].n).toBeGreaterThan(20);
    expect(rows[0].low).toBeGreaterThanOrEqual(0);
    expect(rows[0].high).toBeLessThanOrEqual(1);
    const extremes = await pool.query(
      `SELECT comparable_similarity(0, 100, 100, 'A', 'A', '111', '111', 2000, 2000) AS same,
              comparable_similarity(1e7, 1, 1e6, 'A', 'B', '111', '999', 1800, 2020) AS unlike,
              comparable_similarity(-5, 0, 100, NULL, NULL, NULL, NULL, NULL, NULL) AS unknown`,
    );
    expect(extremes.rows[0].same).toBe(1);
    expect(extremes.rows[0].unlike).toBeGreaterThanOrEqual(0);
    expect(extremes.rows[0].unlike).toBeLessThan(0.01);
    expect(extremes.rows[0].unknown).toBeGreaterThanOrEqual(0);
    expect(extremes.rows[0].unknown).toBeLessThanOrEqual(1);
  });

  it('a re-run on unchanged inputs changes nothing', async () => {
    const before = (await pool.query(`SELECT * FROM comparable_transaction ORDER BY cadastre_id, transaction_id`)).rows;
    expect(await computeAndPublish()).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect((await pool.query(`SELECT * FROM comparable_transaction ORDER BY cadastre_id, transaction_id`)).rows).toEqual(before);
  });

  it('the similarity the pipeline ranks by is the SQL function comparable_similarity analysts can call', async () => {
    const cases: [number, number, number, string | null, string | null, string | null, string | null, number | null, number | null][] = [];
    const types = ['111', '112', '311', 'Bostad;Småhus friliggande', 'Bostad;Flerfamiljshus', null];
    let k = 0;
    for (const distance of [0, 37.5, 499.99, 1_800, 24_000]) {
      for (const [size, other] of [[120, 120], [60, 250], [1, 9_000]]) {
        for (const type of types) {
          const otherType = types[(k++ * 5) % types.length];
          cases.push([distance, size, other, k % 3 ? 'GRUNNEIENDOM' : 'EIERSEKSJON', k % 4 ? 'GRUNNEIENDOM' : null, type, otherType, k % 5 ? 1950 + k : null, 1990]);
        }
      }
    }
    const { rows } = await pool.query(
      `SELECT comparable_similarity(d, a, b, pa, pb, ta, tb, ya, yb) AS s
       FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::int[])
            WITH ORDINALITY AS c(d, a, b, pa, pb, ta, tb, ya, yb, n) ORDER BY n`,
      Array.from({ length: 9 }, (_, column) => cases.map((c) => c[column])),
    );
    cases.forEach(([d, a, b, pa, pb, ta, tb, ya, yb], i) => {
      const ours = similarity(d, { sizeM2: a, propertyType: pa, buildingType: ta, builtYear: ya }, { sizeM2: b, propertyType: pb, buildingType: tb, builtYear: yb });
      expect(Math.abs(ours - rows[i].s)).toBeLessThanOrEqual(1e-4);
      expect(ours).toBeGreaterThanOrEqual(0);
      expect(ours).toBeLessThanOrEqual(1);
    });
  });
});
