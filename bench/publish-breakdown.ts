import type pg from 'pg';
import { createStagingSql } from '../activities/staging-table.js';
import { getSource } from '../sources/registry.js';
import type { PublishScope } from '../sources/source-adapter.js';
import { settle } from './database.js';
import { timed } from './stats.js';

/**
 * Where the publish phase's time goes, statement by statement. The published rows are put
 * back into a staging table of the source's own shape, the live tables emptied, and the
 * source adapter's own publish() run against them in one transaction through a client that
 * times every statement. For comparison: the same rows with a plain INSERT … SELECT (no
 * join against live, no ON CONFLICT, no RETURNING), and a second publish of the unchanged
 * snapshot (what a nightly run with a new file but the same content costs).
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

function describeSql(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim();
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^WITH changed AS \( INSERT INTO (\S+)/, (m) => `upsert ${m[1]} (INSERT … SELECT staging LEFT JOIN live … ON CONFLICT DO UPDATE … RETURNING)`],
    [/^DELETE FROM (\S+) live WHERE .* NOT EXISTS/, (m) => `delete ${m[1]} rows the snapshot lacks (anti-join)`],
    [/^DELETE FROM (\S+) link USING/, (m) => `delete ${m[1]} links of changed parcels`],
    [/^INSERT INTO (\S+) \(country, parcel_id, cadastre_id/, (m) => `insert ${m[1]} links (DISTINCT ON, unnest units)`],
    [/^CREATE TEMP TABLE (\S+)/, (m) => `build temp table ${m[1]} (DISTINCT unnest of units)`],
    [/^INSERT INTO (\S+)/, (m) => `plain INSERT INTO ${m[1]} … SELECT FROM staging`],
    [/^SELECT sum\(ST_Area/, () => 'ST_Area(ST_Transform(geom, UTM)) over all staged parcels (part of the parcel upsert)'],
  ];
  for (const [pattern, name] of rules) {
    const match = pattern.exec(text);
    if (match) return name(match);
  }
  return text.slice(0, 60);
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
  liveTables: string[];
  /** Fills the staging table from the published live rows. */
  fillStaging: (table: string) => string;
  /** The same rows with one plain INSERT … SELECT per live table. */
  plainInserts: (table: string) => string[];
}

const ADDRESS_COLUMNS = 'address_id, cadastre_id, municipality_code, municipality_name, address_type, street_code, street_name, house_number, house_letter, sub_number, address_text, postal_code, postal_place';
const UTM_AREA = `ST_Area(ST_Transform(s.geom, CASE WHEN s.source_srid IN (25832, 25833, 25835) THEN s.source_srid ELSE 25833 END))`;

const PLANS: Record<string, SourcePlan> = {
  'no-address': {
    liveTables: ['address'],
    fillStaging: (t) =>
      `INSERT INTO ${t} (src_pos, ${ADDRESS_COLUMNS}, lon, lat, source_srid, source_updated_at, row_hash)
       SELECT row_number() OVER (), ${ADDRESS_COLUMNS}, ST_X(geom), ST_Y(geom), source_srid, source_updated_at, row_hash FROM address`,
    plainInserts: (t) => [
      `INSERT INTO address (country, ${ADDRESS_COLUMNS}, geom, source_srid, source_updated_at, row_hash, published_run_id)
       SELECT 'NO', ${ADDRESS_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')}, ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326), s.source_srid, s.source_updated_at, s.row_hash, 'bench'
       FROM ${t} s`,
    ],
  },
  'no-cadastre': {
    liveTables: ['parcel_property', 'parcel', 'property'],
    fillStaging: (t) =>
      `INSERT INTO ${t} (src_pos, parcel_id, municipality_code, geom, stored_area_m2, source_srid, units, main_units, row_hash)
       SELECT row_number() OVER (), p.parcel_id, p.municipality_code, p.geom, p.stored_area_m2, p.source_srid,
              coalesce(l.units, '{}'), coalesce(l.main_units, '{}'), p.row_hash
       FROM parcel p
       LEFT JOIN (SELECT parcel_id, array_agg(cadastre_id) AS units,
                         coalesce(array_agg(cadastre_id) FILTER (WHERE is_main_parcel), '{}') AS main_units
                  FROM parcel_property GROUP BY parcel_id) l USING (parcel_id)`,
    plainInserts: (t) => [
      `SELECT sum(${UTM_AREA}) FROM ${t} s`,
      `INSERT INTO parcel (country, parcel_id, municipality_code, geom, area_m2, stored_area_m2, source_srid, row_hash, published_run_id)
       SELECT 'NO', s.parcel_id, s.municipality_code, s.geom, ${UTM_AREA}, s.stored_area_m2, s.source_srid, s.row_hash, 'bench' FROM ${t} s`,
    ],
  },
};

export async function publishBreakdown(pool: pg.Pool, sourceId: string): Promise<PublishBreakdown> {
  const plan = PLANS[sourceId];
  const source = getSource(sourceId);
  const staging = 'staging.bench_publish';
  await pool.query(`DROP TABLE IF EXISTS ${staging}`);
  await pool.query(createStagingSql(source, staging));
  try {
    const filled = await pool.query(plan.fillStaging(staging));
    await pool.query(`ANALYZE ${staging}`); // as the validate phase does before publishing
    const truncate = async () => {
      await pool.query(`TRUNCATE ${plan.liveTables.join(', ')}`);
      await settle(pool);
    };

    await truncate();
    const plain = await inTransaction(pool, async (client) => {
      for (const sql of plan.plainInserts(staging)) await client.query(sql);
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
      // The separate ST_Area query only shows that part of the parcel insert's cost; it is not part of loading.
      plainInsertSeconds: plain.timings.filter((t) => !t.statement.startsWith('ST_Area')).reduce((sum, t) => sum + t.seconds, 0),
      unchanged: again.timings,
      unchangedSeconds: again.seconds,
    };
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${staging}`);
  }
}
