import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject } from 'vitest';
import { Client, Connection, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { RunSummary } from '../../../activities/types.js';
import { PROJECT_ROOT } from '../../../lib/config.js';
import { createDatabase } from '../../../lib/database-admin.js';
import { migrate } from '../../../lib/migrate.js';
import { ingestWorkflowId } from '../../../workflows/refresh.js';
import { liveDigest, tablesDigest } from '../../support/live-snapshot.js';
import { startCluster, type Cluster } from './cluster.js';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';
import { addressCsv, addressSnapshots, ADDRESS_FILE, teigGml, TEIG_FILE, writeInput, zipOf, type AddressSnapshots } from './snapshots.js';
import { waitFor } from './util.js';

/**
 * The fault suite's stack: a PostgreSQL cluster, a Temporal dev server (SQLite file) and worker
 * processes of its own, and the registers it loads. Every scenario clones a database in which
 * snapshot A of `no-address` (and a Teig GML of `no-cadastre`) are published, and runs its own
 * worker process on a task queue of its own.
 */

const execFileAsync = promisify(execFile);

export const ADDRESS_ROWS = Number(process.env.NORDPROP_FAULT_ADDRESS_ROWS ?? 20_000);
export const TEIG_FEATURES = 2_000;
/**
 * Rows per committed COPY chunk. A whole-file stage of A or B commits about 800 of them, the
 * stage of B against a live A (its changed lines only, about 2,600) about 100: the holds of
 * faults.ts catch a stage between two chunks, and at 250 rows B's 11 chunks were all committed
 * before a loaded CI machine ran the hold's next try.
 */
export const STAGE_CHUNK_ROWS = 25;
/** Columns that name the run that wrote a row or when: a clean load and a faulted one differ in them by nature. */
const RUN_COLUMNS = ['published_run_id', 'updated_at'];

export type Digest = Record<string, string>;

export interface Inputs {
  a: string;
  b: string;
  c: string;
  teig: string;
  snapshots: AddressSnapshots;
}

export interface StartedRun {
  runId: string;
  workflowId: string;
  /** The `ingest-no-address-<runId>` child. */
  ingestWorkflowId: string;
  handle: WorkflowHandle;
  client: Client;
}

export interface Settled {
  status: string;
  summary?: RunSummary;
}

export interface Scenario {
  name: string;
  database: string;
  url: string;
  pool: pg.Pool;
  worker: WorkerProcess;
  taskQueue: string;
  dataDir: string;
  backfill(input: string, options?: { force?: boolean; sourceId?: string }): Promise<StartedRun>;
  refresh(sources: string[]): Promise<StartedRun>;
  stop(): Promise<void>;
}

export interface FaultStack {
  dir: string;
  cluster: Cluster;
  temporal: TemporalDevServer;
  client: Client;
  inputs: Inputs;
  /** The live tables no-address writes (from the ledger of A's publish). */
  addressTables: string[];
  /** Digest of those tables, run columns left out, after publishing A; and after a clean run of B (of C) over A. */
  digestA: Digest;
  digestB: Digest;
  digestC: Digest;
  /** Every table of the store, run columns included, right after A: what "unchanged" means. */
  storeA: Digest;
  /** What the clean run of B published. */
  cleanB: RunSummary;
  scenario(name: string, env?: Record<string, string>): Promise<Scenario>;
  stop(): Promise<void>;
}

function newPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // A restarted cluster cuts idle sessions: an error event without a listener would end the test process.
  pool.on('error', () => undefined);
  return pool;
}

/** Digest of `tables` without the run columns: equal for a clean load and a faulted one that published the same snapshot. */
export async function contentDigest(pool: pg.Pool, tables: readonly string[]): Promise<Digest> {
  const projections: string[] = [];
  for (const table of tables) {
    const columns = await pool.query<{ name: string }>(
      `SELECT quote_ident(column_name) AS name FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = $1 AND NOT column_name = ANY($2) ORDER BY ordinal_position`,
      [table, RUN_COLUMNS],
    );
    projections.push(`(SELECT ${columns.rows.map((c) => c.name).join(', ')} FROM ${table})`);
  }
  const digest = await tablesDigest(pool, projections);
  return Object.fromEntries(tables.map((table, i) => [table, digest[projections[i]]]));
}

let runCounter = 0;

export async function startFaultStack(): Promise<FaultStack> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-faults-'));
  const snapshots = addressSnapshots(ADDRESS_ROWS);
  const [cluster, temporal, inputs] = await Promise.all([
    startCluster(dir),
    startTemporalDevServer(dir),
    (async (): Promise<Inputs> => ({
      a: await writeInput(dir, 'A', `${ADDRESS_FILE}.zip`, await zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(addressCsv(snapshots.a)), true)),
      b: await writeInput(dir, 'B', `${ADDRESS_FILE}.zip`, await zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(addressCsv(snapshots.b)), true)),
      c: await writeInput(dir, 'C', `${ADDRESS_FILE}.zip`, await zipOf(`${ADDRESS_FILE}.csv`, Buffer.from(addressCsv(snapshots.c)), true)),
      teig: await writeInput(dir, 'teig', TEIG_FILE, await teigGml(TEIG_FEATURES)),
      snapshots,
    }))(),
  ]);
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const bundle = inject('workflowBundlePath');
  const scenarios = new Set<Scenario>();

  // The database every scenario clones: migrated, with A and the Teig GML published.
  const base = 'faults_base';
  const baseUrl = cluster.urlFor(base);
  await createDatabase(baseUrl);
  await migrate(baseUrl);

  let creating = Promise.resolve();
  const scenario = async (name: string, env: Record<string, string> = {}, template: string | null = base): Promise<Scenario> => {
    const database = `faults_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
    const url = cluster.urlFor(database);
    if (template) {
      // One CREATE DATABASE … TEMPLATE at a time.
      const create = creating.then(() => createDatabase(url, { template }));
      creating = create.then(() => undefined, () => undefined);
      await create;
    }
    const taskQueue = `faults-${name}`;
    const dataDir = path.join(dir, 'data', name);
    await mkdir(dataDir, { recursive: true });
    const worker = await startWorkerProcess({
      DATABASE_URL: url,
      TEMPORAL_ADDRESS: temporal.address,
      NORDPROP_TASK_QUEUE: taskQueue,
      NORDPROP_DATA_DIR: dataDir,
      NORDPROP_STAGE_CHUNK_ROWS: String(STAGE_CHUNK_ROWS),
      NORDPROP_FAULT_WORKFLOW_BUNDLE: bundle,
      ...env,
    });
    const pool = newPool(url);
    const start = async (workflow: 'backfill' | 'nightlyRefresh', args: Record<string, unknown>, sourceId: string): Promise<StartedRun> => {
      const runId = `${name}-${Date.now().toString(36)}-${runCounter++}`;
      const workflowId = `${workflow === 'backfill' ? 'backfill' : 'refresh'}-${runId}`;
      const handle = await client.workflow.start(workflow, { taskQueue, workflowId, args: [{ runId, ...args }] });
      return { runId, workflowId, ingestWorkflowId: ingestWorkflowId(sourceId, runId), handle, client };
    };
    const self: Scenario = {
      name,
      database,
      url,
      pool,
      worker,
      taskQueue,
      dataDir,
      backfill: (input, options = {}) => {
        const sourceId = options.sourceId ?? 'no-address';
        return start('backfill', { sourceId, input, force: options.force ?? false }, sourceId);
      },
      refresh: (sources) => start('nightlyRefresh', { sources }, sources[0]),
      async stop() {
        scenarios.delete(self);
        await worker.stop(5_000);
        await pool.end().catch(() => undefined);
      },
    };
    scenarios.add(self);
    return self;
  };

  const loader = await scenario('base', {}, null);
  const loadA = await loader.backfill(inputs.a);
  const loadedA = await settle(loadA, 120_000);
  const loadTeig = await loader.backfill(inputs.teig, { sourceId: 'no-cadastre' });
  const loadedTeig = await settle(loadTeig, 120_000);
  for (const [label, settled] of [['A', loadedA], ['the Teig GML', loadedTeig]] as const) {
    if (settled.summary?.outcome !== 'succeeded') throw new Error(`loading ${label} did not succeed: ${JSON.stringify(settled)}`);
  }
  const tables = await loader.pool.query<{ table: string }>(
    `SELECT DISTINCT jsonb_object_keys(details->'tables') AS table FROM source_run WHERE source_id = 'no-address' AND outcome = 'published' ORDER BY 1`,
  );
  const addressTables = tables.rows.map((row) => row.table);
  const digestA = await contentDigest(loader.pool, addressTables);
  const storeA = await liveDigest(loader.pool);
  await loader.stop();
  // Nobody may connect to a template while it is cloned.
  await withAdmin(cluster, (admin) => admin.query(`ALTER DATABASE ${base} WITH ALLOW_CONNECTIONS false`));

  // digest(B), digest(C): what a clean run of each over A really publishes.
  const cleanRun = async (label: string, input: string) => {
    const clean = await scenario(`clean-${label}`);
    const settled = await settle(await clean.backfill(input), 120_000);
    if (settled.summary?.outcome !== 'succeeded') throw new Error(`the clean run of ${label} did not succeed: ${JSON.stringify(settled)}`);
    const digest = await contentDigest(clean.pool, addressTables);
    await clean.stop();
    return { digest, summary: settled.summary };
  };
  const [cleanB, cleanC] = await Promise.all([cleanRun('B', inputs.b), cleanRun('C', inputs.c)]);
  console.log(`fault stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s (A: ${snapshots.a.length} rows, B: ${snapshots.b.length} rows)`);

  return {
    dir,
    cluster,
    temporal,
    client,
    inputs,
    addressTables,
    digestA,
    digestB: cleanB.digest,
    digestC: cleanC.digest,
    storeA,
    cleanB: cleanB.summary,
    scenario: (name, env) => scenario(name, env),
    async stop() {
      await Promise.all([...scenarios].map((s) => s.stop().catch(() => undefined)));
      await connection.close().catch(() => undefined);
      await temporal.stop();
      await cluster.stop();
      if (!process.env.NORDPROP_FAULT_KEEP) await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function withAdmin<T>(cluster: Cluster, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Waits until the workflow is closed (polling describe(), so a Temporal restart in between only
 * delays it), then returns its status and result. On timeout, throws with what the run is
 * doing (workflow status, pending activities and their attempts).
 */
export async function settle(run: StartedRun, timeoutMs: number): Promise<Settled> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let status: string | undefined;
    try {
      status = (await run.handle.describe()).status.name;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw error;
    }
    if (status && status !== 'RUNNING') {
      if (status !== 'COMPLETED') return { status };
      return { status, summary: (await run.handle.result()) as RunSummary };
    }
    if (Date.now() > deadline) {
      throw new Error(`run ${run.runId} still running after ${timeoutMs / 1000} s: ${await describeRun(run.client, run)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One line per workflow of the run: status and pending activities (attempt, last failure). */
export async function describeRun(client: Client, run: StartedRun): Promise<string> {
  const lines: string[] = [];
  for (const workflowId of [run.workflowId, run.ingestWorkflowId]) {
    try {
      const description = await client.workflow.getHandle(workflowId).describe();
      const raw = description.raw;
      const pending = (raw.pendingActivities ?? []).map(
        (a) => `${a.activityType?.name} attempt ${a.attempt} state ${a.state}${a.lastFailure?.message ? ` last failure: ${a.lastFailure.message}` : ''}`,
      );
      lines.push(`${workflowId}: ${description.status.name}${pending.length ? `; pending: ${pending.join('; ')}` : ''}`);
    } catch (error) {
      lines.push(`${workflowId}: ${(error as Error).message}`);
    }
  }
  return lines.join(' | ');
}

/** The attempt each activity of a workflow ran with, from its history (a retried activity records its last attempt). */
export async function activityAttempts(client: Client, workflowId: string): Promise<Record<string, number>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  const attempts: Record<string, number> = {};
  for (const event of history.events ?? []) {
    const id = String(event.eventId);
    if (event.activityTaskScheduledEventAttributes) scheduled.set(id, event.activityTaskScheduledEventAttributes.activityType?.name ?? '?');
    const startedAttrs = event.activityTaskStartedEventAttributes;
    if (startedAttrs) {
      const type = scheduled.get(String(startedAttrs.scheduledEventId)) ?? '?';
      attempts[type] = Math.max(attempts[type] ?? 0, startedAttrs.attempt ?? 1);
    }
  }
  return attempts;
}

export interface LedgerEntry {
  runOutcome: string;
  sourceOutcome: string;
  error: string | null;
  inserted: number;
  updated: number;
  deleted: number;
}

export async function ledger(scenario: Scenario, runId: string, sourceId = 'no-address'): Promise<LedgerEntry | undefined> {
  const result = await scenario.pool.query(
    `SELECT r.outcome AS run_outcome, s.outcome AS source_outcome, s.error, s.inserted, s.updated, s.deleted
     FROM run r LEFT JOIN source_run s ON s.run_id = r.run_id AND s.source_id = $2 WHERE r.run_id = $1`,
    [runId, sourceId],
  );
  const row = result.rows[0];
  return row && { runOutcome: row.run_outcome, sourceOutcome: row.source_outcome, error: row.error, inserted: row.inserted, updated: row.updated, deleted: row.deleted };
}

export async function stagingTables(scenario: Scenario): Promise<string[]> {
  const result = await scenario.pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'staging' AND c.relkind = 'r' ORDER BY 1`,
  );
  return result.rows.map((row) => row.name);
}

/** `nordprop runs show RUN_ID --json`, what a data engineer reads. */
export async function runsShow(scenario: Scenario, runId: string): Promise<{ outcome: string; sources: { sourceId: string; outcome: string; error?: string }[] }> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli/main.ts'), 'runs', 'show', runId, '--json'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NORDPROP_ENV_FILE: '', DATABASE_URL: scenario.url },
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}
