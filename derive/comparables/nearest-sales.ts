/**
 * The comparables of each subject (a property, or a sale when the valuation model checks
 * itself), from a spatial index of the sales:
 * - the sales are read once into a Flatbush index (a packed Hilbert R-tree) in the country's
 *   metric CRS; each subject asks it for its CANDIDATE_POOL nearest sales (a KNN search of the
 *   index, not a scan), never a sale of its own property;
 * - the radius: the smallest step of RADIUS_STEPS_M that holds MIN_COMPARABLES of them (500 m in
 *   a town, widening to 25 km in the countryside; 25 km when fewer exist);
 * - the ranking: within the radius, the MAX_COMPARABLES most similar (similarity.ts), ties by
 *   distance, then transaction id.
 *
 * Subjects are read in pages of PAGE_SIZE and their comparables written with COPY, so memory
 * holds the sales index and one page, whatever the number of properties. A KNN query in the database (`ORDER BY geom <-> point LIMIT n`) took 0.3 ms a
 * property on this machine: 15 minutes for three million. The index in memory answers in
 * microseconds.
 */
import { createInterface } from 'node:readline';
import Flatbush from 'flatbush';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { encodeCell } from '../../lib/copy-text.js';
import { CopyWriter } from '../../lib/copy-writer.js';
import { similarity, type Comparable } from './similarity.js';

export const RADIUS_STEPS_M = [500, 1_000, 2_000, 5_000, 10_000, 25_000] as const;
export const MIN_COMPARABLES = 5;
export const MAX_COMPARABLES = 10;
export const CANDIDATE_POOL = 32;
const PAGE_SIZE = 20_000;

export const NEAREST_TABLE = 'derive_nearest_sales';

interface Sale extends Comparable {
  transactionId: string;
  cadastreId: string;
  pricePerM2: number;
  currency: string;
}

export interface Subject extends Comparable {
  key: string;
  cadastreId: string;
  east: number;
  north: number;
}

export interface ChosenSale {
  transactionId: string;
  distanceM: number;
  pricePerM2: number;
  currency: string;
  similarity: number;
}

const nullable = (text: string) => (text === '\\N' ? null : text);

/** The sales of `table` matching `where`, in a spatial index. */
export class SaleIndex {
  private constructor(
    private readonly sales: Sale[],
    private readonly east: Float64Array,
    private readonly north: Float64Array,
    private readonly index: Flatbush | null,
  ) {}

  static async load(client: pg.PoolClient, table: string, where = 'true'): Promise<SaleIndex> {
    const sales: Sale[] = [];
    const east: number[] = [], north: number[] = [];
    const stream = client.query(copyTo(
      `COPY (SELECT transaction_id, cadastre_id, ST_X(geom), ST_Y(geom), price_per_m2, currency, size_m2, property_type, building_type, built_year
             FROM ${table} WHERE ${where} ORDER BY transaction_id) TO STDOUT`,
    ));
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      const [transactionId, cadastreId, x, y, pricePerM2, currency, size, propertyType, buildingType, builtYear] = line.split('\t');
      sales.push({
        transactionId, cadastreId, pricePerM2: Number(pricePerM2), currency, sizeM2: Number(size),
        propertyType: nullable(propertyType), buildingType: nullable(buildingType), builtYear: builtYear === '\\N' ? null : Number(builtYear),
      });
      east.push(Number(x));
      north.push(Number(y));
    }
    let index: Flatbush | null = null;
    if (sales.length) {
      // Added in transaction-id order: equal distances come back in the same order on every run.
      index = new Flatbush(sales.length);
      for (let i = 0; i < sales.length; i++) index.add(east[i], north[i], east[i], north[i]);
      index.finish();
    }
    return new SaleIndex(sales, Float64Array.from(east), Float64Array.from(north), index);
  }

  get size(): number {
    return this.sales.length;
  }

  /** The subject's comparables, most similar first. */
  choose(subject: Subject): ChosenSale[] {
    if (!this.index) return [];
    const pool = this.nearest(subject)
      .map((i) => ({ sale: this.sales[i], distanceM: Math.round(Math.hypot(this.east[i] - subject.east, this.north[i] - subject.north) * 100) / 100 }))
      .sort((a, b) => a.distanceM - b.distanceM || compare(a.sale.transactionId, b.sale.transactionId));
    const enoughWithin = pool.length >= MIN_COMPARABLES ? pool[MIN_COMPARABLES - 1].distanceM : Infinity;
    const radius = RADIUS_STEPS_M.find((step) => step >= enoughWithin) ?? RADIUS_STEPS_M[RADIUS_STEPS_M.length - 1];
    return pool
      .filter((c) => c.distanceM <= radius)
      .map((c) => ({ transactionId: c.sale.transactionId, distanceM: c.distanceM, pricePerM2: c.sale.pricePerM2, currency: c.sale.currency, similarity: similarity(c.distanceM, subject, c.sale) }))
      .sort((a, b) => b.similarity - a.similarity || a.distanceM - b.distanceM || compare(a.transactionId, b.transactionId))
      .slice(0, MAX_COMPARABLES);
  }

  /**
   * The CANDIDATE_POOL sales nearest the subject (not of its own property), cut by (exact
   * distance, transaction id). The index returns equally distant sales in the order of its
   * tree, which depends on every other sale in it; sections of one building share its point, so
   * such ties at the pool's edge are common. Resolving them by id makes the pool a function of
   * the sales alone: a re-run, or a sale elsewhere, cannot swap one tied sale for another
   * (the SQL KNN before it took them in scan order, and a re-run changed thousands of rows).
   */
  private nearest(subject: Subject): number[] {
    const index = this.index!;
    const notOwn = (i: number) => this.sales[i].cadastreId !== subject.cadastreId;
    // Squared distance as the index computes it, so "as near as the edge" means the same here and there.
    const squared = (i: number) => {
      const dx = this.east[i] - subject.east, dy = this.north[i] - subject.north;
      return dx * dx + dy * dy;
    };
    // One more than the pool: when it is farther than the last, no tie crosses the edge.
    let found = index.neighbors(subject.east, subject.north, CANDIDATE_POOL + 1, Infinity, notOwn);
    if (found.length > CANDIDATE_POOL && squared(found[CANDIDATE_POOL]) === squared(found[CANDIDATE_POOL - 1])) {
      // Every sale as near as the edge (a little beyond it: the index compares squared distances), then the exact cut.
      const edge = Math.sqrt(squared(found[CANDIDATE_POOL - 1]));
      found = index.neighbors(subject.east, subject.north, Infinity, edge * (1 + 1e-9) + 1e-9, notOwn);
    }
    return found
      .map((i) => ({ i, d: squared(i) }))
      .sort((a, b) => a.d - b.d || compare(this.sales[a.i].transactionId, this.sales[b.i].transactionId))
      .slice(0, CANDIDATE_POOL)
      .map((c) => c.i);
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes the comparables of every row of `subjects` (a table with `subjectKey`, cadastre_id,
 * geom, size_m2, property_type, building_type, built_year), chosen from `sales`, with COPY:
 * - by default into pg_temp.derive_nearest_sales (subject_id, transaction_id, distance_m,
 *   price_per_m2, currency, similarity), which it creates;
 * - with `staging`, straight into a property_comparables staging table for that country: one
 *   row per subject property with comparables (the subjects must be properties).
 * Returns the number of comparables (subject and sale pairs) written.
 */
export async function writeNearestSales(
  client: pg.PoolClient,
  options: { subjects: string; subjectKey: string; subjectWhere?: string; sales: SaleIndex; staging?: { table: string; country: string } },
): Promise<number> {
  const staging = options.staging;
  let target: string;
  if (staging) {
    target = `${staging.table} (country, cadastre_id, transaction_ids, distances_m, prices_per_m2, price_per_m2_currency, similarities)`;
  } else {
    await client.query(`DROP TABLE IF EXISTS pg_temp.${NEAREST_TABLE}`);
    await client.query(
      `CREATE TEMP TABLE ${NEAREST_TABLE} (subject_id text NOT NULL, transaction_id text NOT NULL, distance_m double precision NOT NULL,
                                           price_per_m2 double precision NOT NULL, currency text, similarity double precision NOT NULL)`,
    );
    target = NEAREST_TABLE;
  }
  let written = 0;
  let after: string | null = null;
  for (;;) {
    // Keyset pages in key order: one page of subjects in memory at a time.
    const page: pg.QueryResult = await client.query(
      `SELECT ${options.subjectKey} AS key, cadastre_id, ST_X(geom) AS east, ST_Y(geom) AS north, size_m2, property_type, building_type, built_year
       FROM ${options.subjects}
       WHERE (${options.subjectWhere ?? 'true'}) AND ($1::text IS NULL OR ${options.subjectKey} > $1)
       ORDER BY ${options.subjectKey} LIMIT ${PAGE_SIZE}`,
      [after],
    );
    if (!page.rows.length) break;
    after = page.rows[page.rows.length - 1].key;
    const copy = new CopyWriter(client, target);
    for (const row of page.rows) {
      const subject: Subject = {
        key: row.key, cadastreId: row.cadastre_id, east: row.east, north: row.north, sizeM2: row.size_m2,
        propertyType: row.property_type, buildingType: row.building_type, builtYear: row.built_year,
      };
      const chosen = options.sales.choose(subject);
      if (!chosen.length) continue;
      written += chosen.length;
      const line = staging ? propertyLine(staging.country, subject.cadastreId, chosen) : pairLines(subject.key, chosen);
      if (copy.add(line)) await copy.flush();
    }
    await copy.end();
    if (page.rows.length < PAGE_SIZE) break;
  }
  if (!staging) await client.query(`ANALYZE pg_temp.${NEAREST_TABLE}`);
  return written;
}

/** A property_comparables row: the subject's comparables as parallel arrays, in rank order. */
function propertyLine(country: string, cadastreId: string, chosen: ChosenSale[]): string {
  const currency = chosen[0].currency;
  if (chosen.some((c) => c.currency !== currency)) throw new Error(`the comparables of ${cadastreId} are priced in more than one currency`);
  // Stored as numeric(16, 2): rounded here as the database would.
  const prices = chosen.map((c) => (Math.round(c.pricePerM2 * 100) / 100).toFixed(2));
  return [
    encodeCell(country), encodeCell(cadastreId), encodeCell(chosen.map((c) => c.transactionId)),
    `{${chosen.map((c) => c.distanceM).join(',')}}`, `{${prices.join(',')}}`, encodeCell(currency), `{${chosen.map((c) => c.similarity).join(',')}}`,
  ].join('\t') + '\n';
}

/** Rows of pg_temp.derive_nearest_sales: one per subject and comparable. */
function pairLines(subjectId: string, chosen: ChosenSale[]): string {
  const key = encodeCell(subjectId);
  return chosen.map((c) => `${key}\t${encodeCell(c.transactionId)}\t${c.distanceM}\t${c.pricePerM2}\t${encodeCell(c.currency)}\t${c.similarity}\n`).join('');
}
