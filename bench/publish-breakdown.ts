import type pg from 'pg';
import { createStagingSql } from '../activities/staging-table.js';
import { getSource } from '../sources/registry.js';
import { quoteIdent } from '../lib/db.js';
import type { SourceAdapter } from '../sources/source-adapter.js';
import type { PublishScope } from '../lib/domain/publish-scope.js';
import { baseTables, settle } from './database.js';
import { timed } from './stats.js';

/**
 * Where the publish phase's time goes, statement by statement. The published rows are put
 * back into a staging table of the source's own shape, the live tables emptied, and the
 * source adapter's own publish() run against them in one transaction through a client that
 * times every statement. For comparison: the same rows inserted with a plain
 * `INSERT INTO <live> SELECT * FROM <a copy of its published rows>` (no expressions, no join
 * against live), and a second publish of the unchanged snapshot (what a nightly run with a
 * new file but the same content costs).
 */

export interface StatementTiming {
  statement: string;
  seconds: number;
  rows: number | null;
}

export interface PublishBreakdown {
  sourceId: string;
  rows: number;
  firstLoad: StatementTiming[];
  firstLoadSeconds: number;
  plainInsert: StatementTiming[];
  plainInsertSeconds: number;
  unchanged: StatementTiming[];
  unchangedSeconds: number;
}

const SCOPE: PublishScope = { country: 'NO', municipalities: null };

const STATEMENT_RULES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^UPDATE (\S+) AS live SET/, (m) => `update changed ${m[1]} rows (UPDATE … FROM staging WHERE the row hash differs)`],
  [/^INSERT INTO (\S+) \(country, [a-z_]+, .*WHERE NOT EXISTS/, (m) => `insert new ${m[1]} rows (INSERT … SELECT FROM staging WHERE NOT EXISTS in live)`],
  [/^INSERT INTO (\S+) SELECT \* FROM staging\.bench_published_/, (m) => `plain INSERT INTO ${m[1]} SELECT * FROM a copy of its published rows`],
  [/^WITH changed AS \( INSERT INTO (\S+)/, (m) => `upsert ${m[1]} (INSERT … SELECT staging LEFT JOIN live … ON CONFLICT DO UPDATE … RETURNING)`],
  [/^DELETE FROM (\S+) live WHERE/, (m) => `delete ${m[1]} rows the snapshot lacks (anti-join)`],
  [/^DELETE FROM (\S+) link\b/, (m) => `delete ${m[1]} links of changed parcels`],
  [/^INSERT INTO (\S+) \(country, parcel_id, cadastre_id/, (m) => `insert ${m[1]} links of changed parcels (unnest units)`],
  [/^CREATE TEMP TABLE (\S+)/, (m) => `build temp table ${m[1]} (DISTINCT unnest of units)`],
  [/^SELECT NOT EXISTS \(SELECT 1 FROM (\S+?)\)/, (m) => `check whether ${m[1]} is empty`],
  [/^SELECT i\.indexrelid/, () => 'look up the secondary indexes'],
  [/^DROP INDEX (\S+)/, (m) => `drop index ${m[1]} (empty live table: built again after the insert)`],
  [/^CREATE (?:UNIQUE )?INDEX (\S+)/, (m) => `build index ${m[1]} again`],
  [/^ANALYZE (\S+)/, (m) => `ANALYZE ${m[1]}`],
  [/^INSERT INTO (\S+)/, (m) => `INSERT INTO ${m[1]} …`],
];

/** A readable name for a statement, from its SQL (or from a label stored by an older run: names pass through). */
export function describeStatement(sqlOrLabel: string): string {
  const text = sqlOrLabel.replace(/\s+/g, ' ').trim();
  for (const [pattern, name] of STATEMENT_RULES) {
    const match = pattern.exec(text);
    if (match) return name(match);
  }
  return text;
}

function describeSql(sql: string): string {
  const text = describeStatement(sql);
  return text.length > 80 && /^[A-Z]/.test(text) ? `${text.slice(0, 77)}…` : text;
}

/** A client whose query() records the duration of each statement (publish code only calls query). */
function timingClient(client: pg.PoolClient, timings: StatementTiming[]): pg.PoolClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'query') {
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        const sql = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text ?? '');
        const { seconds, result } = await timed(() => (target.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args));
        // The upserts answer one row of counts: report the rows they wrote instead.
        const counts = result.rows?.[0] as { inserted?: number | string; updated?: number | string } | undefined;
        const rows = counts && 'inserted' in counts ? Number(counts.inserted) + Number(counts.updated) : (result.rowCount ?? null);
        if (!/^\s*(DROP TABLE IF EXISTS pg_temp|SELECT pg_advisory)/.test(sql)) timings.push({ statement: describeSql(sql), seconds, rows });
        return result;
      };
    },
  });
}

async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<{ seconds: number; timings: StatementTiming[] }> {
  const timings: StatementTiming[] = [];
  const client = await pool.connect();
  try {
    const { seconds } = await timed(async () => {
      await client.query('BEGIN');
      await work(timingClient(client, timings));
      const commit = await timed(() => client.query('COMMIT'));
      timings.push({ statement: 'COMMIT', seconds: commit.seconds, rows: null });
    });
    return { seconds, timings };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

interface SourcePlan {
  /** Live relations in insert order (views among them are skipped). */
  liveTables: string[];
  /** FROM clause over the published rows, and the expression for each staging column. */
  from: string;
  column: (name: string) => string;
}

const PLANS: Record<string, SourcePlan> = {
  'no-address': {
    liveTables: ['address'],
    from: 'address',
    column: (name) => (name === 'lon' ? 'ST_X(geom)' : name === 'lat' ? 'ST_Y(geom)' : name),
  },
  'no-cadastre': {
    liveTables: ['parcel', 'parcel_property', 'property'],
    from: `parcel p LEFT JOIN (SELECT parcel_id, array_agg(cadastre_id) AS units,
                                      coalesce(array_agg(cadastre_id) FILTER (WHERE is_main_parcel), '{}') AS main_units
                               FROM parcel_property GROUP BY parcel_id) l USING (parcel_id)`,
    column: (name) => (name === 'units' || name === 'main_units' ? `coalesce(l.${name}, '{}')` : `p.${name}`),
  },
};

/** Whether the benchmark knows how to put this source's published rows back into its staging shape. */
export const canReplayPublish = (sourceId: string): boolean => sourceId in PLANS;

/** Fills a staging table of the adapter's current shape from the published rows (the adapter's staging columns may change). */
function fillStagingSql(source: SourceAdapter, plan: SourcePlan, table: string): string {
  const names = source.stagingColumns.map((c) => c.name);
  return `INSERT INTO ${table} (src_pos, ${names.map(quoteIdent).join(', ')}, row_hash)
          SELECT row_number() OVER (), ${names.map(plan.column).join(', ')}, ${plan.column('row_hash')} FROM ${plan.from}`;
}

export async function publishBreakdown(pool: pg.Pool, sourceId: string): Promise<PublishBreakdown> {
  const plan = PLANS[sourceId];
  const source = getSource(sourceId);
  const staging = 'staging.bench_publish';
  const tables = await baseTables(pool, plan.liveTables);
  const copies = tables.map((table) => ({ table, copy: `staging.bench_published_${table}` }));
  const cleanup = async () => {
    for (const table of [staging, ...copies.map((c) => c.copy)]) await pool.query(`DROP TABLE IF EXISTS ${table}`);
  };
  await cleanup();
  try {
    // The published rows, twice: in the adapter's staging shape, and as they are in the live tables.
    await pool.query(createStagingSql(source, staging));
    const filled = await pool.query(fillStagingSql(source, plan, staging));
    await pool.query(`ANALYZE ${staging}`); // as the validate phase does before publishing
    for (const { table, copy } of copies) await pool.query(`CREATE UNLOGGED TABLE ${copy} AS SELECT * FROM ${table}`);
    const truncate = async () => {
      await pool.query(`TRUNCATE ${tables.join(', ')}`);
      await settle(pool);
    };

    await truncate();
    const plain = await inTransaction(pool, async (client) => {
      for (const { table, copy } of copies) await client.query(`INSERT INTO ${table} SELECT * FROM ${copy}`);
    });
    await truncate();
    // A run id of its own for each publish, as in the pipeline (links are rewritten for the parcels a run changed).
    const context = (client: pg.PoolClient, runId: string) => ({ client, stagingTable: staging, runId, sourceId });
    const first = await inTransaction(pool, async (client) => {
      await source.publish(context(client, 'bench-publish-1'), SCOPE);
    });
    await settle(pool);
    const again = await inTransaction(pool, async (client) => {
      await source.publish(context(client, 'bench-publish-2'), SCOPE);
    });
    return {
      sourceId,
      rows: filled.rowCount ?? 0,
      firstLoad: first.timings,
      firstLoadSeconds: first.seconds,
      plainInsert: plain.timings,
      plainInsertSeconds: plain.seconds,
      unchanged: again.timings,
      unchangedSeconds: again.seconds,
    };
  } finally {
    await cleanup();
  }
}
