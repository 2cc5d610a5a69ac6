import { getPool, withTransaction } from '../lib/db.js';
import { tuneBulkTransaction } from '../lib/bulk-settings.js';
import { getSource } from '../sources/registry.js';
import type { ChangeCounts } from '../lib/domain/change-counts.js';
import type { ValidatedSnapshot } from './types.js';
import { assertStagingIntact, dropStagingTables } from './staging-table.js';
import { withHeartbeat } from './heartbeat.js';
import { analyzeStaleTables } from './stale-statistics.js';
import { assertIncrementBase, assertRecordsIntact, collectRemovedKeys, recordPublishedLines } from './record-hashes.js';
import { holdSourceRunForPublish, recordDuration } from './ledger.js';
import { stepTimer } from '../sources/publish/step-timer.js';
import { markSourceRunPublished } from '../lib/run-ledger.js';
import { assertLiveRowsKept } from './row-drop.js';

/**
 * One transaction: merge the snapshot into the live tables and close the ledger entry. Readers
 * see the old register or the new one. A retry after a crash that happened after COMMIT finds
 * the ledger entry published and returns its counts instead of merging again.
 */
type PublishRequest = { runId: string; sourceId: string; snapshot: ValidatedSnapshot };

/** The merge is long statements in one transaction: heartbeats show the worker is alive. */
export async function publishStaged(request: PublishRequest): Promise<ChangeCounts> {
  return withHeartbeat(() => publish(request));
}

async function publish(request: PublishRequest): Promise<ChangeCounts> {
  const started = performance.now();
  const source = getSource(request.sourceId);
  const { stagingTable, scope } = request.snapshot;
  let tablesChanged: Record<string, ChangeCounts> = {};
  const counts = await withTransaction(getPool(), async (client) => {
    // One publisher per source at a time, whatever the number of workers. (finished_at below is
    // clock_timestamp(): now() would be the start of this long transaction.)
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('nordprop.publish'), hashtext($1))`, [source.id]);
    // Names the run on the change events the live tables' triggers write (schema/…_events.sql).
    await client.query(`SELECT set_config('nordprop.run_id', $1, true)`, [request.runId]);
    await tuneBulkTransaction(client);
    const ledger = await holdSourceRunForPublish(client, request.runId, source.id);
    if (ledger?.outcome === 'published') {
      const { inserted, updated, deleted } = ledger;
      return { inserted, updated, deleted };
    }
    // Only what was validated is merged: after a database restart the staging table may be
    // empty, and merging it would delete every live row in scope. Nothing else writes it now.
    await assertStagingIntact(client, stagingTable, request.snapshot.fingerprint);
    const { lineRecords } = request.snapshot;
    let recordChanges: string | undefined;
    if (lineRecords) {
      await assertRecordsIntact(client, lineRecords);
      recordChanges = await assertIncrementBase(client, { sourceId: source.id, runId: request.runId, stagingTable, records: lineRecords });
    }
    // The line-record steps are timed beside the adapter's own (publishStepsMs).
    const { timed, steps } = stepTimer();
    const removedKeys = lineRecords?.increment ? await timed('removed_keys', () => collectRemovedKeys(client, source, stagingTable, lineRecords, recordChanges)) : undefined;
    const context = { client, stagingTable, runId: request.runId, sourceId: source.id, removedKeys };
    const merged = request.snapshot.increment && source.increment
      ? await source.increment.publishChanges(context, ledger?.position ?? {})
      : await source.publish(context, scope);
    if (source.rowDropAfterMerge) await timed('row_drop', () => assertLiveRowsKept(client, source, request.snapshot));
    const lineHashes = lineRecords ? await timed('line_hashes', () => recordPublishedLines(client, { source, runId: request.runId, stagingTable, records: lineRecords, scope, changes: recordChanges })) : {};
    await markSourceRunPublished(client, {
      runId: request.runId,
      sourceId: source.id,
      counts: merged,
      details: { tables: merged.tables, scope, publishStepsMs: { ...merged.stepsMs, ...steps } },
    });
    tablesChanged = { ...merged.tables, ...lineHashes };
    return { inserted: merged.inserted, updated: merged.updated, deleted: merged.deleted };
  });
  await dropStaging(request);
  // A publish that changed much of a table leaves the planner's statistics stale until autovacuum
  // comes by; after a large load a coordinate lookup could pick a plan that scans a whole index.
  await analyzeStaleTables(getPool(), tablesChanged);
  // The whole phase, COMMIT and statistics included (an idempotent retry records its own).
  await recordDuration(request.runId, source.id, 'publish', performance.now() - started);
  return counts;
}

/** Removes a source run's staging table (after publishing, or when the run failed). */
export async function dropStaging(request: { runId: string; sourceId: string }): Promise<void> {
  await dropStagingTables(getPool(), request.sourceId, request.runId);
}
