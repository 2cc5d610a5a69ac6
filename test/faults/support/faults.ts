import pg from 'pg';
import { expect } from 'vitest';
import { stagingTableName } from '../../../activities/staging-table.js';
import { contentDigest, ledger, stagingTables, type FaultStack, type Scenario, type Settled, type StartedRun } from './stack.js';
import { waitFor } from './util.js';

/**
 * Landing a fault at a known point, and what a user checks afterwards.
 *
 * A lock of the test's own holds the pipeline at a known statement: `LOCK TABLE … IN SHARE
 * MODE` lets readers through but makes the next COPY into a staging table, or the publish's
 * first write to a live table, wait for it. The fault is injected while the pipeline waits
 * there, and the lock released afterwards (a restarted cluster releases it by itself).
 */

/** What a hold needs of a scenario: its database. */
type ScenarioDatabase = Pick<Scenario, 'pool' | 'url'>;

export interface Hold {
  /** Rows in the table when the lock was granted (staging holds). */
  rows: number;
  /** COMMIT the test's transaction; a no-op once the session is gone (a restarted cluster). */
  release(): Promise<void>;
}

/** A transaction of the test's own, open until `release` commits it. */
async function openTransaction(url: string): Promise<{ client: pg.Client; release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url, application_name: 'nordprop-fault-test' });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  return {
    client,
    async release() {
      await client.query('COMMIT').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

async function lockTable(url: string, table: string): Promise<{ client: pg.Client; release: () => Promise<void> }> {
  const held = await openTransaction(url);
  await held.client.query(`LOCK TABLE ${table} IN SHARE MODE`);
  return held;
}

/** Until a pipeline session waits for a lock on `table` (held by the test); returns the statement that waits. */
export async function waitUntilBlockedOn(scenario: ScenarioDatabase, table: string, timeoutMs = 120_000): Promise<string> {
  return waitFor(`a pipeline statement waiting for the lock on ${table}`, async () => {
    const result = await scenario.pool.query<{ query: string }>(
      `SELECT a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE NOT l.granted AND l.relation = to_regclass($1) AND a.datname = current_database() AND a.application_name = 'nordprop'`,
      [table],
    );
    return result.rows[0]?.query;
  }, timeoutMs);
}

/**
 * Holds the run's stage mid-file: once its staging table holds committed rows, locks it, and
 * waits until the stage's next COPY waits for the lock (so the fault lands with some chunks
 * committed and more to come).
 */
export async function holdStage(scenario: ScenarioDatabase, run: StartedRun, sourceId = 'no-address'): Promise<Hold> {
  const table = stagingTableName(sourceId, run.runId);
  // The lock is asked for as soon as the table exists and kept once rows are committed: it is
  // granted when the chunk in flight commits, ahead of the next chunk's COPY. Counting first
  // and locking after left a window in which a loaded machine staged the rest of the file; so
  // did a new connection for every try (a clean-clone CI run again found validation waiting):
  // one session tries again and again, each try a transaction of its own.
  const session = await openTransaction(scenario.url);
  await session.client.query('ROLLBACK');
  const { lock, rows } = await waitFor(`committed rows in ${table}, and its lock`, async () => {
    const exists = await session.client.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [table]);
    if (!exists.rows[0].t) return false;
    await session.client.query('BEGIN');
    await session.client.query(`LOCK TABLE ${table} IN SHARE MODE`);
    const committed = (await session.client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
    if (committed > 0) return { lock: session, rows: committed };
    await session.client.query('ROLLBACK');
    return false;
  }, 120_000, { intervalMs: 2 }).catch(async (error) => {
    await session.release();
    throw error;
  });
  const waiting = await waitUntilBlockedOn(scenario, table);
  if (!/^\s*COPY\b/i.test(waiting)) {
    await lock.release();
    throw new Error(`precondition: the stage was to wait mid-file in its next COPY, but what waits is: ${waiting.slice(0, 200)}`);
  }
  return { rows, release: lock.release };
}

/** Holds the publish inside its transaction: lock the live table now, then wait until the publish waits for it. */
export async function lockLive(scenario: ScenarioDatabase, table = 'address'): Promise<Hold & { blocked(): Promise<void> }> {
  const lock = await lockTable(scenario.url, table);
  return {
    rows: 0,
    release: lock.release,
    async blocked() {
      await waitUntilBlockedOn(scenario, table);
    },
  };
}

/**
 * Holds the run's close (finishRun, a short bookkeeping activity, the only statement that updates
 * the run's ledger row): locks the row as soon as it exists, then waits until the close waits for it.
 */
export async function holdRunClose(scenario: ScenarioDatabase, runId: string): Promise<Hold & { blocked(): Promise<string> }> {
  const { client, release } = await openTransaction(scenario.url);
  await waitFor(`the ledger row of run ${runId}, and its lock`, async () => ((await client.query(`SELECT 1 FROM run WHERE run_id = $1 FOR NO KEY UPDATE`, [runId])).rowCount ?? 0) > 0, 120_000, { intervalMs: 10 });
  const holder = (await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
  return {
    rows: 0,
    release,
    blocked: () =>
      waitFor('the run\'s close waiting for the ledger row', async () => {
        const waiting = await scenario.pool.query<{ query: string }>(
          `SELECT query FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'nordprop' AND $1 = ANY(pg_blocking_pids(pid))`,
          [holder],
        );
        return waiting.rows[0]?.query;
      }, 180_000),
  };
}

export type Which = 'A' | 'B' | 'C';

/** Which snapshot live holds exactly (compared with the real published states), or undefined for anything else. */
export async function liveSnapshot(stack: FaultStack, pool: pg.Pool): Promise<Which | undefined> {
  const live = JSON.stringify(await contentDigest(pool, stack.addressTables));
  const known: [Which, unknown][] = [['A', stack.digestA], ['B', stack.digestB], ['C', stack.digestC]];
  return known.find(([, digest]) => JSON.stringify(digest) === live)?.[0];
}

/** Live is exactly A or exactly B, never a mix; which one. */
export async function expectLiveIsAOrB(stack: FaultStack, scenario: Scenario, allowed: readonly Which[] = ['A', 'B']): Promise<Which> {
  const which = await liveSnapshot(stack, scenario.pool);
  if (!which || !allowed.includes(which)) {
    const count = (await scenario.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM address`)).rows[0].n;
    const sizes = allowed.map((w) => `${w} (${stack.inputs.snapshots[w.toLowerCase() as 'a' | 'b' | 'c'].length} rows)`).join(' or ');
    expect.fail(`live is not ${sizes} but ${which ? `snapshot ${which}` : `${count} rows matching no snapshot (a mix${count === 0 ? ': emptied' : ''})`}`);
  }
  return which;
}

/**
 * What a user checks after a run: the workflow closed, the ledger's run and source entries have
 * a final outcome, no staging table is left, live is A or B and agrees with the outcome, and a
 * failure says what happened. Returns which snapshot is live.
 */
export async function expectSettledRun(stack: FaultStack, scenario: Scenario, run: StartedRun, settled: Settled): Promise<Which> {
  const entry = await ledger(scenario, run.runId);
  const live = await liveSnapshot(stack, scenario.pool);
  console.log(`${scenario.name}: run ${entry?.runOutcome}, source ${entry?.sourceOutcome}, live ${live ?? 'a mix'}${entry?.error ? `, error: ${entry.error}` : ''}`);
  const which = await expectLiveIsAOrB(stack, scenario);
  expect(entry, `ledger of run ${run.runId}`).toBeDefined();
  expect(entry!.runOutcome, `run ${run.runId} outcome`).not.toBe('running');
  expect(entry!.sourceOutcome, `source_run of ${run.runId} outcome (${entry!.error ?? 'no error'})`).not.toBe('running');
  expect(await stagingTables(scenario), 'tables left in schema staging').toEqual([]);
  if (entry!.sourceOutcome === 'published') {
    expect(which, 'live after a published run').toBe('B');
  } else {
    expect(which, `live after a ${entry!.sourceOutcome} run`).toBe('A');
    expect(entry!.error, 'the error a data engineer reads').toBeTruthy();
  }
  expect(settled.status, `workflow ${run.workflowId} status`).toBe('COMPLETED');
  expect(scenario.worker.crashes(), 'worker processes that died on their own').toEqual([]);
  return which;
}
