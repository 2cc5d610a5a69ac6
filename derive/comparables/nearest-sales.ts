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
import { arrayElement, decodeCells, encodeCell } from '../../lib/copy-text.js';
import { CopyWriter } from '../../lib/copy-writer.js';
import { buildingClass, similarityOfClasses, type Comparable } from './similarity.js';

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
  currency: string | null;
}

/** What a sale contributes to the COPY lines it appears in, worked out once per sale rather than once per property it is a comparable of. */
interface SaleText {
  buildingClass: string | null;
  /** `transactionId` as an element of a COPY text array (property_comparables.transaction_ids). */
  idElement: string;
  /** `pricePerM2` as property_comparables stores it, numeric(16, 2). */
  priceText: string;
  /** The cells of a pg_temp.derive_nearest_sales row the sale fills: its id, and its price and currency (the distance goes between). */
  idCell: string;
  priceAndCurrencyCells: string;
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
  currency: string | null;
  similarity: number;
}

/** Above this many candidates, a sort by comparison rather than by insertion (many sales at one point). */
const INSERTION_SORT_MAX = 64;

/**
 * The sales of `table` matching `where`, in a spatial index.
 *
 * Every subject (a country's built properties) asks it once, so `choose` is the inner loop of the
 * comparables: at 0.05 × national it ran 5.3 s for Norway's 124,000 properties (a CPU profile:
 * a third of it objects, closures and sorts of the candidates, a fifth writing their COPY lines,
 * the string comparisons of ids and properties). Hence the candidates as indices into typed
 * arrays, ties broken by a sale's rank in id order rather than by comparing ids, a sale's
 * property as a number, and what a sale writes computed once. The result is that of the rules
 * below, row for row (test/derive/comparables/nearest-sales.test.ts checks it against them).
 */
export class SaleIndex {
  /** A sale's place in transaction-id order (equal ids, equal places): ties are broken by it. */
  private readonly idRank: Int32Array;
  /** A sale's property as a number (`propertyNumbers`), to leave out the subject's own sales. */
  private readonly propertyOf: Int32Array;
  private readonly propertyNumbers = new Map<string, number>();
  private readonly texts: SaleText[];
  // The candidates of the subject being chosen for (pick runs to its end without yielding, so one set serves every call):
  private readonly pool = new Int32Array(CANDIDATE_POOL);
  /** Scratch of `nearest` only: the pool's squared distances while it is filled. */
  private readonly poolSquared = new Float64Array(CANDIDATE_POOL);
  private readonly poolDistance = new Float64Array(CANDIDATE_POOL);
  private readonly poolSimilarity = new Float64Array(CANDIDATE_POOL);
  /** The chosen, as positions in `pool`, best first. */
  private readonly chosen = new Int32Array(MAX_COMPARABLES);

  private constructor(
    private readonly sales: Sale[],
    private readonly east: Float64Array,
    private readonly north: Float64Array,
    private readonly index: Flatbush | null,
  ) {
    const n = sales.length;
    const byId = Array.from({ length: n }, (_, i) => i).sort((a, b) => compare(sales[a].transactionId, sales[b].transactionId));
    this.idRank = new Int32Array(n);
    for (let r = 0; r < n; r++) {
      const i = byId[r];
      this.idRank[i] = r > 0 && sales[byId[r - 1]].transactionId === sales[i].transactionId ? this.idRank[byId[r - 1]] : r;
    }
    this.propertyOf = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let number = this.propertyNumbers.get(sales[i].cadastreId);
      if (number === undefined) this.propertyNumbers.set(sales[i].cadastreId, (number = this.propertyNumbers.size));
      this.propertyOf[i] = number;
    }
    this.texts = sales.map((sale) => ({
      buildingClass: buildingClass(sale.buildingType),
      idElement: encodeCell(arrayElement(sale.transactionId)),
      // Stored as numeric(16, 2): rounded here as the database would.
      priceText: (Math.round(sale.pricePerM2 * 100) / 100).toFixed(2),
      idCell: encodeCell(sale.transactionId),
      priceAndCurrencyCells: `${sale.pricePerM2}\t${encodeCell(sale.currency)}`,
    }));
  }

  static async load(client: pg.PoolClient, table: string, where = 'true'): Promise<SaleIndex> {
    const sales: Sale[] = [];
    const east: number[] = [], north: number[] = [];
    const stream = client.query(copyTo(
      `COPY (SELECT transaction_id, cadastre_id, ST_X(geom), ST_Y(geom), price_per_m2, currency, size_m2, property_type, building_type, built_year
             FROM ${table} WHERE ${where} ORDER BY transaction_id) TO STDOUT`,
    ));
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      const [transactionId, cadastreId, x, y, pricePerM2, currency, size, propertyType, buildingType, builtYear] = decodeCells(line);
      sales.push({
        transactionId: transactionId!, cadastreId: cadastreId!, pricePerM2: Number(pricePerM2), currency, sizeM2: Number(size),
        propertyType, buildingType, builtYear: builtYear === null ? null : Number(builtYear),
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
    const count = this.pick(subject);
    return Array.from(this.chosen.subarray(0, count), (k) => {
      const sale = this.sales[this.pool[k]];
      return { transactionId: sale.transactionId, distanceM: this.poolDistance[k], pricePerM2: sale.pricePerM2, currency: sale.currency, similarity: this.poolSimilarity[k] };
    });
  }

  /** The subject's property_comparables row as a COPY line (country, cadastre_id, then its comparables as arrays in rank order; `''` without any), and how many. */
  propertyLine(country: string, subject: Subject): { line: string; count: number } {
    const count = this.pick(subject);
    if (!count) return { line: '', count };
    const first = this.pool[this.chosen[0]];
    const currency = this.sales[first].currency;
    let ids = '', distances = '', prices = '', similarities = '';
    for (let c = 0; c < count; c++) {
      const k = this.chosen[c];
      const i = this.pool[k];
      if (this.sales[i].currency !== currency) throw new Error(`the comparables of ${subject.cadastreId} are priced in more than one currency`);
      const separator = c ? ',' : '';
      ids += separator + this.texts[i].idElement;
      distances += separator + this.poolDistance[k];
      prices += separator + this.texts[i].priceText;
      similarities += separator + this.poolSimilarity[k];
    }
    return { line: `${encodeCell(country)}\t${encodeCell(subject.cadastreId)}\t{${ids}}\t{${distances}}\t{${prices}}\t${encodeCell(currency)}\t{${similarities}}\n`, count };
  }

  /** Rows of pg_temp.derive_nearest_sales, one per comparable of the subject (`''` without any), and how many. */
  pairLines(subject: Subject): { line: string; count: number } {
    const count = this.pick(subject);
    const key = encodeCell(subject.key);
    let lines = '';
    for (let c = 0; c < count; c++) {
      const k = this.chosen[c];
      const text = this.texts[this.pool[k]];
      lines += `${key}\t${text.idCell}\t${this.poolDistance[k]}\t${text.priceAndCurrencyCells}\t${this.poolSimilarity[k]}\n`;
    }
    return { line: lines, count };
  }

  /**
   * Chooses the subject's comparables into `chosen` (positions in `pool`, whose distance and
   * similarity are set) and returns how many:
   * - the pool (`nearest`), ordered by distance rounded to the centimetre, then id;
   * - the radius: the smallest of RADIUS_STEPS_M holding MIN_COMPARABLES of it;
   * - within it, the MAX_COMPARABLES most similar; ties by distance, then id.
   */
  private pick(subject: Subject): number {
    if (!this.index) return 0;
    const { pool, poolDistance: distance, poolSimilarity: similarity, chosen, idRank: rank } = this;
    const n = this.nearest(subject);
    for (let k = 0; k < n; k++) {
      const i = pool[k];
      distance[k] = Math.round(Math.hypot(this.east[i] - subject.east, this.north[i] - subject.north) * 100) / 100;
    }
    // By (rounded distance, id): the pool is in (exact distance, id) order, so this only settles
    // sales whose distances round alike.
    for (let k = 1; k < n; k++) {
      const i = pool[k], d = distance[k];
      let j = k - 1;
      for (; j >= 0 && (distance[j] > d || (distance[j] === d && rank[pool[j]] > rank[i])); j--) {
        pool[j + 1] = pool[j];
        distance[j + 1] = distance[j];
      }
      pool[j + 1] = i;
      distance[j + 1] = d;
    }
    const enoughWithin = n >= MIN_COMPARABLES ? distance[MIN_COMPARABLES - 1] : Infinity;
    const radius = RADIUS_STEPS_M.find((step) => step >= enoughWithin) ?? RADIUS_STEPS_M[RADIUS_STEPS_M.length - 1];
    const subjectClass = buildingClass(subject.buildingType);
    // The most similar of those within the radius (a prefix of the pool), kept in order by insertion.
    let count = 0;
    for (let k = 0; k < n && distance[k] <= radius; k++) {
      const sale = this.sales[pool[k]];
      const s = (similarity[k] = similarityOfClasses(distance[k], subject, sale, subjectClass, this.texts[pool[k]].buildingClass));
      // Every candidate before k is at least as near, and no farther in id order at the same distance: only a higher similarity ranks before it.
      let j = Math.min(count, MAX_COMPARABLES) - 1;
      if (count === MAX_COMPARABLES && similarity[chosen[j]] >= s) continue;
      for (; j >= 0 && similarity[chosen[j]] < s; j--) if (j + 1 < MAX_COMPARABLES) chosen[j + 1] = chosen[j];
      chosen[j + 1] = k;
      if (count < MAX_COMPARABLES) count++;
    }
    return count;
  }

  /**
   * The CANDIDATE_POOL sales nearest the subject (not of its own property), cut by (exact
   * distance, transaction id), into `pool` in that order; returns how many. The index returns
   * equally distant sales in the order of its tree, which depends on every other sale in it;
   * sections of one building share its point, so such ties at the pool's edge are common.
   * Resolving them by id makes the pool a function of the sales alone: a re-run, or a sale
   * elsewhere, cannot swap one tied sale for another (the SQL KNN before it took them in scan
   * order, and a re-run changed thousands of rows).
   */
  private nearest(subject: Subject): number {
    const index = this.index!;
    const { east, north, propertyOf, idRank: rank } = this;
    const own = this.propertyNumbers.get(subject.cadastreId);
    const notOwn = own === undefined ? undefined : (i: number) => propertyOf[i] !== own;
    // Squared distance as the index computes it, so "as near as the edge" means the same here and there.
    const squared = (i: number) => {
      const dx = east[i] - subject.east, dy = north[i] - subject.north;
      return dx * dx + dy * dy;
    };
    // One more than the pool: when it is farther than the last, no tie crosses the edge.
    let found = index.neighbors(subject.east, subject.north, CANDIDATE_POOL + 1, Infinity, notOwn);
    if (found.length > CANDIDATE_POOL && squared(found[CANDIDATE_POOL]) === squared(found[CANDIDATE_POOL - 1])) {
      // Every sale as near as the edge (a little beyond it: the index compares squared distances), then the exact cut.
      const edge = Math.sqrt(squared(found[CANDIDATE_POOL - 1]));
      found = index.neighbors(subject.east, subject.north, Infinity, edge * (1 + 1e-9) + 1e-9, notOwn);
    }
    const { pool, poolSquared } = this;
    if (found.length > INSERTION_SORT_MAX) {
      found.sort((a, b) => squared(a) - squared(b) || rank[a] - rank[b]);
      const n = Math.min(found.length, CANDIDATE_POOL);
      pool.set(found.slice(0, n));
      return n;
    }
    // Found in distance order but for ties: insertion into the pool, the farthest falling off its end.
    let count = 0;
    for (const i of found) {
      const d = squared(i);
      let j = count - 1;
      if (count === CANDIDATE_POOL && (poolSquared[j] < d || (poolSquared[j] === d && rank[pool[j]] <= rank[i]))) continue;
      for (; j >= 0 && (poolSquared[j] > d || (poolSquared[j] === d && rank[pool[j]] > rank[i])); j--) {
        if (j + 1 < CANDIDATE_POOL) {
          pool[j + 1] = pool[j];
          poolSquared[j + 1] = poolSquared[j];
        }
      }
      pool[j + 1] = i;
      poolSquared[j + 1] = d;
      if (count < CANDIDATE_POOL) count++;
    }
    return count;
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
      const { line, count } = staging ? options.sales.propertyLine(staging.country, subject) : options.sales.pairLines(subject);
      if (!count) continue;
      written += count;
      if (copy.add(line)) await copy.flush();
    }
    await copy.end();
    if (page.rows.length < PAGE_SIZE) break;
  }
  if (!staging) await client.query(`ANALYZE pg_temp.${NEAREST_TABLE}`);
  return written;
}
