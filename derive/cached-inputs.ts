import type pg from 'pg';
import { quoteIdent } from '../lib/db.js';
import type { Country } from '../lib/domain/country.js';
import { storeFingerprint } from './inputs-fingerprint.js';

/**
 * Inputs several datasets of a country read, built once: the property features comparables and
 * valuations both weigh took about half of each one's time (0.05 × national, Norway: 5.0 s of
 * comparables' 10.8 s), and the nightly computed them twice. The first dataset of a run that
 * needs one builds it into `derive_cache` (an UNLOGGED table per country); the others of the run
 * read it, and so do later runs while the country's registers, the schema and the derive code are
 * unchanged (storeFingerprint): a night without changes that computes for a new day.
 *
 * The table's comment labels it with what it was built from, the run that built it and its row
 * count. A crash of the database empties UNLOGGED tables but keeps the comment, so a count that
 * differs from the label's means the table must be built again, never read as empty.
 */
export interface SharedInputs {
  /** The derive run computing: what one of its datasets built, the others read. */
  runId: string;
  /**
   * Build again whatever an earlier run built (`nordprop derive`, which must see an edit made by
   * hand in a register's live table; the nightly's fingerprint cannot).
   */
  rebuild: boolean;
}

export interface SharedTable {
  /** Schema-qualified and quoted. */
  table: string;
  rows: number;
  /** Read as built by this run's earlier dataset or an earlier run, not built now. */
  reused: boolean;
}

/** How a table kept across runs is labelled and brought up to date (`sharedTable`'s options). */
export interface KeptTableOptions {
  /**
   * What the table depends on beyond what `update` follows; the store's fingerprint (every source
   * of the country) when omitted. Another value builds the table again.
   */
  fingerprint?: string;
  /**
   * Brings a table an earlier run built or updated up to date with the store, in place, and
   * returns its row count: for a table whose rows each follow a few live rows (a parcel's plan
   * overlaps follow the parcel), so that a night recomputes only what changed.
   */
  update?: (table: string) => Promise<number>;
}

interface Label {
  store: string;
  run: string;
  rows: number;
}

/**
 * The shared table `name` of the country: reused when its label allows (brought up to date by
 * `options.update` when an earlier run made it), else built by `build` (which creates the table it
 * is given and returns its row count) and labelled. Runs in the caller's transaction, which holds
 * a lock on the name until it ends: a second run of the same country waits rather than reading a
 * table being built, and an update that fails is rolled back with it.
 */
export async function sharedTable(
  client: pg.PoolClient,
  country: Country,
  shared: SharedInputs,
  name: string,
  build: (table: string) => Promise<number>,
  options: KeptTableOptions = {},
): Promise<SharedTable> {
  const table = `derive_cache.${quoteIdent(`${name}_${country.toLowerCase()}`)}`;
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('nordprop.derive_cache'), hashtext($1))`, [table]);
  // Before anything is read: a source publishing during the build makes the label older than
  // the table, so the next run builds again (the other way round it would reuse stale rows).
  const store = options.fingerprint ?? (await storeFingerprint(client, country));
  const label = await readLabel(client, table);
  if (label && (label.run === shared.runId || (!shared.rebuild && label.store === store)) && (await countRows(client, table)) === label.rows) {
    if (label.run === shared.runId || !options.update) return { table, rows: label.rows, reused: true };
    const rows = await options.update(table);
    await writeLabel(client, table, { store, run: shared.runId, rows });
    return { table, rows, reused: true };
  }
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  const rows = await build(table);
  await writeLabel(client, table, { store, run: shared.runId, rows });
  return { table, rows, reused: false };
}

async function writeLabel(client: pg.PoolClient, table: string, label: Label): Promise<void> {
  await client.query(`COMMENT ON TABLE ${table} IS '${JSON.stringify(label).replaceAll("'", "''")}'`);
}

async function readLabel(client: pg.PoolClient, table: string): Promise<Label | undefined> {
  const result = await client.query<{ label: string | null }>(`SELECT obj_description(to_regclass($1), 'pg_class') AS label`, [table]);
  const text = result.rows[0]?.label;
  if (!text) return undefined;
  try {
    const label = JSON.parse(text) as Partial<Label>;
    return typeof label.store === 'string' && typeof label.run === 'string' && typeof label.rows === 'number' ? (label as Label) : undefined;
  } catch {
    return undefined; // not a label of ours: build again
  }
}

/** The rows of a table, counted. */
export async function countRows(client: pg.PoolClient, table: string): Promise<number> {
  return Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
}
