import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { CANDIDATE_POOL, MAX_COMPARABLES, MIN_COMPARABLES, RADIUS_STEPS_M, SaleIndex, type ChosenSale, type Subject } from '../../../derive/comparables/nearest-sales.js';
import { similarity } from '../../../derive/comparables/similarity.js';
import { encodeCell } from '../../../lib/copy-text.js';
import { createTestDatabase } from '../../support/database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let client: pg.PoolClient;

// A block of 80 flats (sections of one building, so one point) 100 m from the subject, alike in
// every way: far more equally near sales than the pool of CANDIDATE_POOL holds.
const SUBJECT: Subject = { key: 's', cadastreId: '0301-1-1-0-0', east: 500_000, north: 6_600_000, sizeM2: 70, propertyType: 'EIERSEKSJON', buildingType: '142', builtYear: 1990 };
const FLATS = 80;

async function createSales(table: string, extra: number): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.query(
    `CREATE TEMP TABLE ${table} (transaction_id text, cadastre_id text, geom geometry(Point, 25833), price_per_m2 double precision,
                                currency text, size_m2 double precision, property_type text, building_type text, built_year int)`,
  );
  // Written in a scrambled id order, so nothing depends on the order rows arrive in.
  await client.query(
    `INSERT INTO ${table}
     SELECT 'flat-' || lpad(k::text, 3, '0'), '0301-1-2-0-' || k, ST_SetSRID(ST_MakePoint(500100, 6600000), 25833), 60000, 'NOK', 70, 'EIERSEKSJON', '142', 1990
     FROM generate_series(1, ${FLATS}) k ORDER BY md5(k::text)`,
  );
  // Sales far away (30 km and more): none is a candidate, but they reshape the index's tree.
  await client.query(
    `INSERT INTO ${table}
     SELECT 'far-' || k, '0301-9-' || k || '-0-0', ST_SetSRID(ST_MakePoint(530000 + (k % 50) * 97, 6600000 + (k / 50) * 131), 25833), 50000, 'NOK', 120, 'EIENDOM', '111', 1970
     FROM generate_series(1, ${extra}) k`,
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
  client = await pool.connect();
});
afterAll(async () => {
  client?.release();
  await closePools();
  await database?.drop();
});

describe('nearest sales', () => {
  it('more equally near sales than the pool holds: the lowest transaction ids, whatever else the index holds', async () => {
    const expected = Array.from({ length: MAX_COMPARABLES }, (_, k) => `flat-${String(k + 1).padStart(3, '0')}`);
    expect(FLATS).toBeGreaterThan(CANDIDATE_POOL);
    for (const extra of [0, 1, 37, 500, 2_000]) {
      await createSales('pg_temp.sales', extra);
      const index = await SaleIndex.load(client, 'pg_temp.sales');
      expect(index.size).toBe(FLATS + extra);
      const chosen = index.choose(SUBJECT);
      expect(chosen.map((c) => c.transactionId), `with ${extra} sales elsewhere`).toEqual(expected);
      expect(chosen.every((c) => c.distanceM === 100)).toBe(true);
    }
  });
});

/** A sale as the rules below read it (the columns SaleIndex.load reads). */
interface PlainSale {
  transactionId: string;
  cadastreId: string;
  east: number;
  north: number;
  pricePerM2: number;
  currency: string;
  sizeM2: number;
  propertyType: string | null;
  buildingType: string | null;
  builtYear: number | null;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The comparables rules as docs/derived/comparables.md states them, by brute force over every
 * sale: the CANDIDATE_POOL nearest sales of other properties by exact distance, then id; ordered
 * by distance to the centimetre, then id; the smallest radius step holding MIN_COMPARABLES of
 * them; within it, the MAX_COMPARABLES most similar, ties by distance, then id.
 */
function chosenByTheRules(sales: PlainSale[], subject: Subject): ChosenSale[] {
  const squared = (s: PlainSale) => (s.east - subject.east) ** 2 + (s.north - subject.north) ** 2;
  const pool = sales
    .filter((s) => s.cadastreId !== subject.cadastreId)
    .sort((a, b) => squared(a) - squared(b) || byText(a.transactionId, b.transactionId))
    .slice(0, CANDIDATE_POOL)
    .map((sale) => ({ sale, distanceM: Math.round(Math.hypot(sale.east - subject.east, sale.north - subject.north) * 100) / 100 }))
    .sort((a, b) => a.distanceM - b.distanceM || byText(a.sale.transactionId, b.sale.transactionId));
  const enoughWithin = pool.length >= MIN_COMPARABLES ? pool[MIN_COMPARABLES - 1].distanceM : Infinity;
  const radius = RADIUS_STEPS_M.find((step) => step >= enoughWithin) ?? RADIUS_STEPS_M[RADIUS_STEPS_M.length - 1];
  return pool
    .filter((c) => c.distanceM <= radius)
    .map(({ sale, distanceM }) => ({ transactionId: sale.transactionId, distanceM, pricePerM2: sale.pricePerM2, currency: sale.currency, similarity: similarity(distanceM, subject, sale) }))
    .sort((a, b) => b.similarity - a.similarity || a.distanceM - b.distanceM || byText(a.transactionId, b.transactionId))
    .slice(0, MAX_COMPARABLES);
}

/** A property_comparables COPY line of `chosen`, cell by cell through the project's COPY encoding. */
function propertyLineOf(country: string, cadastreId: string, chosen: ChosenSale[]): string {
  const prices = chosen.map((c) => (Math.round(c.pricePerM2 * 100) / 100).toFixed(2));
  return [
    encodeCell(country), encodeCell(cadastreId), encodeCell(chosen.map((c) => c.transactionId)),
    `{${chosen.map((c) => c.distanceM).join(',')}}`, `{${prices.join(',')}}`, encodeCell(chosen[0].currency), `{${chosen.map((c) => c.similarity).join(',')}}`,
  ].join('\t') + '\n';
}

/** Deterministic numbers in [0, 1). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

describe('nearest sales, against the rules by brute force', () => {
  it('chooses, ranks and writes what the rules give, with sales sharing points, own sales, unknowns and ids COPY must escape', async () => {
    const random = numbers(19);
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
    const sales: PlainSale[] = [];
    // A town of 3 × 3 km on a 50 m grid, so sales share points (sections of a building), one
    // property selling several times, and a countryside 40-80 km east with few sales.
    for (let k = 0; k < 3_000; k++) {
      const town = k < 2_700;
      sales.push({
        transactionId: k % 97 === 0 ? `odd "id",\\ ${k}\t` : `t-${String(Math.floor(random() * 1e6)).padStart(6, '0')}-${k}`,
        cadastreId: `0301-${k % 1_400}-0-0-0`,
        east: town ? 500_000 + Math.floor(random() * 60) * 50 : 540_000 + random() * 40_000,
        north: town ? 6_600_000 + Math.floor(random() * 60) * 50 : 6_600_000 + random() * 40_000,
        pricePerM2: Math.round(random() * 1e8) / 1e3,
        currency: 'NOK',
        sizeM2: pick([45, 70, 120.5, 180, 0.5]),
        propertyType: pick(['GRUNNEIENDOM', 'EIERSEKSJON', null]),
        buildingType: pick(['111', '121', '142', '311', null]),
        builtYear: pick([1890, 1950, 1990, 2015, null]),
      });
    }
    await client.query('DROP TABLE IF EXISTS pg_temp.sales');
    await client.query(
      `CREATE TEMP TABLE sales (transaction_id text, cadastre_id text, geom geometry(Point, 25833), price_per_m2 double precision,
                               currency text, size_m2 double precision, property_type text, building_type text, built_year int)`,
    );
    await client.query(
      `INSERT INTO sales SELECT s.transaction_id, s.cadastre_id, ST_SetSRID(ST_MakePoint(s.east, s.north), 25833), s.price_per_m2, s.currency,
                                s.size_m2, s.property_type, s.building_type, s.built_year
       FROM json_to_recordset($1::json) AS s(transaction_id text, cadastre_id text, east float8, north float8, price_per_m2 float8, currency text,
                                            size_m2 float8, property_type text, building_type text, built_year int)`,
      [JSON.stringify(sales.map((s) => ({
        transaction_id: s.transactionId, cadastre_id: s.cadastreId, east: s.east, north: s.north, price_per_m2: s.pricePerM2, currency: s.currency,
        size_m2: s.sizeM2, property_type: s.propertyType, building_type: s.buildingType, built_year: s.builtYear,
      })))],
    );
    const index = await SaleIndex.load(client, 'pg_temp.sales');
    // PostGIS hands the coordinates back as they went in: the rules see what the index sees.
    let subjects = 0, ties = 0;
    for (let k = 0; k < 600; k++) {
      const atSale = k % 3 === 0 ? sales[Math.floor(random() * sales.length)] : undefined;
      const subject: Subject = {
        key: `s${k}`,
        // Every fifth subject is a property with sales of its own, which are never its comparables.
        cadastreId: k % 5 === 0 ? `0301-${k % 1_400}-0-0-0` : `0301-x-${k}`,
        east: atSale?.east ?? 500_000 + (k % 4 === 1 ? 45_000 + random() * 40_000 : random() * 3_000),
        north: atSale?.north ?? 6_600_000 + random() * 3_000,
        sizeM2: pick([60, 120.5, 0]), propertyType: pick(['GRUNNEIENDOM', null]), buildingType: pick(['111', '142', null]), builtYear: pick([1950, null]),
      };
      const expected = chosenByTheRules(sales, subject);
      expect(index.choose(subject), subject.key).toEqual(expected);
      const line = index.propertyLine('NO', subject);
      expect(line.count).toBe(expected.length);
      if (expected.length) {
        expect(line.line).toBe(propertyLineOf('NO', subject.cadastreId, expected));
        subjects++;
        if (new Set(expected.map((c) => c.distanceM)).size < expected.length) ties++;
      }
      const pairs = index.pairLines(subject);
      expect(pairs.line).toBe(expected.map((c) => `${encodeCell(subject.key)}\t${encodeCell(c.transactionId)}\t${c.distanceM}\t${c.pricePerM2}\t${encodeCell(c.currency)}\t${c.similarity}\n`).join(''));
    }
    // The data exercised what it was made for: most subjects chose, many among equally near sales.
    expect(subjects).toBeGreaterThan(500);
    expect(ties).toBeGreaterThan(100);
  });
});
