import type pg from 'pg';
import { getPool, quoteIdent, withTransaction } from '../lib/db.js';
import { deriveLedgerId, getDataset, selectDatasets } from '../derive/registry.js';
import { mergeDerived } from '../derive/publish.js';
import { inputsFingerprint } from '../derive/inputs-fingerprint.js';
import { tuneBulkTransaction } from '../lib/bulk-settings.js';
import type { DerivedDatasetId } from '../derive/dataset.js';
import { COUNTRIES, type Country } from '../lib/domain/country.js';
import { closeSourceRunUnchanged, insertRun, insertSourceRun, lastDerivedDurations, lastDerivedInputs, markSourceRunPublished } from '../lib/run-ledger.js';
import { getSourceRunSummary, holdSourceRunForPublish, recordDuration } from './ledger.js';
import { withHeartbeat } from './heartbeat.js';
import { assertStagingIntact, stagingFingerprint } from './staging-table.js';
import { stagingTableName } from './staging-table.js';
import type { SourceRunSummary } from './types.js';

/** One dataset for one country, as the derive workflow schedules it. */
export interface PlannedDerivation {
  datasetId: DerivedDatasetId;
  country: Country;
  /** Its ledger id (`derive-no-tenants`). */
  ledgerId: string;
  dependsOn: DerivedDatasetId[];
  /** Its last computation's time (compute and publish), ms; none when never computed. The workflow runs the longest chains first. */
  lastMs?: number;
}

export interface DeriveRequest {
  runId: string;
  datasetId: DerivedDatasetId;
  country: Country;
  /** YYYY-MM-DD. */
  asOf: string;
  /** Skip the computation when its inputs are those of its last one (derive/inputs-fingerprint.ts): the nightly's choice. */
  skipUnchanged?: boolean;
}

/**
 * Records a derive run in the run ledger (kind `derive`) and returns what it computes: for each
 * country, the datasets in dependency order, each with its last computation's time.
 */
export async function planDerive(input: { runId: string; workflowId: string; countries?: readonly Country[]; datasets?: string[] }): Promise<PlannedDerivation[]> {
  const datasets = selectDatasets(input.datasets);
  const countries = input.countries?.length ? input.countries : COUNTRIES;
  const planned = countries.flatMap((country) =>
    datasets.map((d) => ({ datasetId: d.id, country, ledgerId: deriveLedgerId(d.id, country), dependsOn: d.dependsOn ?? [] })),
  );
  await insertRun(getPool(), { runId: input.runId, kind: 'derive', workflowId: input.workflowId, sources: planned.map((p) => p.ledgerId), forced: false });
  const lastMs = await lastDerivedDurations(getPool(), planned.map((p) => p.ledgerId));
  return planned.map((p) => (lastMs.has(p.ledgerId) ? { ...p, lastMs: lastMs.get(p.ledgerId) } : p));
}

const stagingOf = (request: Pick<DeriveRequest, 'runId' | 'datasetId' | 'country'>) => stagingTableName(deriveLedgerId(request.datasetId, request.country), request.runId);

/**
 * Computes one dataset for one country into an UNLOGGED staging table, then merges it into the
 * live table in one transaction that also closes the ledger entry. A retry after that commit
 * finds the entry published and returns its counts without computing again.
 */
export async function deriveDataset(request: DeriveRequest): Promise<SourceRunSummary> {
  // Heartbeats through the whole activity: the computation and the merge are each one long statement.
  return withHeartbeat(() => computeAndPublish(request));
}

async function computeAndPublish(request: DeriveRequest): Promise<SourceRunSummary> {
  const dataset = getDataset(request.datasetId);
  const ledgerId = deriveLedgerId(dataset.id, request.country);
  const pool = getPool();
  await insertSourceRun(pool, { runId: request.runId, sourceId: ledgerId, country: request.country, input: `${dataset.title}, as of ${request.asOf}` });
  const before = await getSourceRunSummary({ runId: request.runId, sourceId: ledgerId });
  if (before.outcome === 'published' || before.outcome === 'unchanged') return before;
  const dependencies = (dataset.dependsOn ?? []).map((id) => deriveLedgerId(id, request.country));
  const inputs = await inputsFingerprint(pool, request.country, request.asOf, dependencies);
  if (request.skipUnchanged && (await lastDerivedInputs(pool, ledgerId, request.runId)) === inputs) {
    await closeSourceRunUnchanged(pool, { runId: request.runId, sourceId: ledgerId, details: { dataset: dataset.id, asOf: request.asOf, inputs } });
    return getSourceRunSummary({ runId: request.runId, sourceId: ledgerId });
  }

  const stagingTable = stagingOf(request);
  let started = performance.now();
  const stats = await withTransaction(pool, async (client) => {
    // One snapshot for the whole computation: its statements read the registers as of one moment
    // whatever a source publishes meanwhile (a kept table brought up to date with the parcels,
    // and the parcels it is then joined with, agree). It writes only its own tables.
    await client.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    await client.query(`DROP TABLE IF EXISTS ${stagingTable}`);
    // UNLOGGED: a crash loses only the staging table, which the retry computes again.
    await client.query(`CREATE UNLOGGED TABLE ${stagingTable} (LIKE ${dataset.liveTable} INCLUDING DEFAULTS)`);
    await tuneBulkTransaction(client);
    // The nightly (skipUnchanged) may read inputs an earlier run built from the same registers;
    // `nordprop derive` builds them again once per run.
    const shared = { runId: request.runId, rebuild: !request.skipUnchanged };
    const computed = (await dataset.compute({ client, country: request.country, asOf: request.asOf, stagingTable, shared })) ?? {};
    // A computation's temporary tables (millions of rows for comparables at national size) would
    // otherwise live on in this pooled session until it closes.
    await client.query('DISCARD TEMP');
    return computed;
  });
  const staged = await checkStaged(pool, stagingTable, dataset.keyColumns, request.country, dataset.id);
  const computedFingerprint = await stagingFingerprint(pool, stagingTable, dataset.keyColumns);
  await recordDuration(request.runId, ledgerId, 'compute', performance.now() - started, { rows_read: stats.rowsRead ?? 0, rows_staged: staged });

  started = performance.now();
  let changed = false;
  await withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('nordprop.publish'), hashtext($1))`, [ledgerId]);
    await client.query(`SELECT set_config('nordprop.run_id', $1, true)`, [request.runId]); // names the run on change events (docs/webhooks.md)
    await tuneBulkTransaction(client);
    if ((await holdSourceRunForPublish(client, request.runId, ledgerId))?.outcome === 'published') return;
    // Crash recovery empties UNLOGGED tables: merging an emptied snapshot would delete the live
    // dataset. The activity's retry computes it again.
    await assertStagingIntact(client, stagingTable, computedFingerprint, { columns: dataset.keyColumns, retryable: true });
    const counts = await mergeDerived(client, dataset, stagingTable, request.country);
    changed = counts.inserted + counts.updated + counts.deleted > 0;
    await markSourceRunPublished(client, {
      runId: request.runId,
      sourceId: ledgerId,
      counts,
      details: { dataset: dataset.id, asOf: request.asOf, liveTable: dataset.liveTable, stats: stats.details ?? {}, inputs },
    });
  });
  await dropDerivedStaging(request);
  // Fresh statistics for the API's plans (autovacuum would come by later).
  if (changed) await pool.query(`ANALYZE ${quoteIdent(dataset.liveTable)}`);
  await recordDuration(request.runId, ledgerId, 'publish', performance.now() - started);
  return getSourceRunSummary({ runId: request.runId, sourceId: ledgerId });
}

/** A computed snapshot with two rows for one key would fail the merge half-way: refuse it with the key. */
async function checkStaged(pool: pg.Pool, stagingTable: string, keys: string[], country: Country, datasetId: string): Promise<number> {
  const stray = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${stagingTable} WHERE country IS DISTINCT FROM $1`, [country]);
  if (stray.rows[0].n) throw new Error(`${datasetId}: the computation staged ${stray.rows[0].n} rows of another country than ${country}`);
  const duplicate = await pool.query(`SELECT ${keys.join(', ')}, count(*)::int AS n FROM ${stagingTable} GROUP BY ${keys.join(', ')} HAVING count(*) > 1 LIMIT 1`);
  if (duplicate.rowCount) throw new Error(`${datasetId}: the computation staged ${duplicate.rows[0].n} rows for one key ${JSON.stringify(duplicate.rows[0])}`);
  return (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${stagingTable}`)).rows[0].n;
}

export async function dropDerivedStaging(request: Pick<DeriveRequest, 'runId' | 'datasetId' | 'country'>): Promise<void> {
  await getPool().query(`DROP TABLE IF EXISTS ${stagingOf(request)}`);
}

