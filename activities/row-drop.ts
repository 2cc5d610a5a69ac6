import type pg from 'pg';
import { loadConfig } from '../lib/config.js';
import type { SourceAdapter } from '../sources/source-adapter.js';
import type { ValidatedSnapshot } from './types.js';
import { validationFailure } from './validation-failure.js';

/**
 * The row-drop guard: a snapshot may leave at most NORDPROP_MAX_ROW_DROP fewer rows live than
 * there are (a truncated or partial file must not empty live). Validate judges it from what was
 * staged; for a source whose staged records are not its live rows (rowDropAfterMerge), the
 * publish judges it again from live itself.
 */
export function rowDropFloor(liveRows: number): number {
  return Math.ceil(liveRows * (1 - loadConfig().maxRowDrop));
}

export function rowDropFailure(what: string, rows: number, liveRows: number) {
  const percent = (((liveRows - rows) / liveRows) * 100).toFixed(1);
  return validationFailure(
    `${what} ${rows} rows against ${liveRows} live (${percent}% fewer, over the ${(loadConfig().maxRowDrop * 100).toFixed(0)}% limit); rerun with --force if the drop is real`,
  );
}

/** In the publish transaction, after the merge: live counted again, as `countLive` counts it. Throws (and so rolls back) below the floor. */
export async function assertLiveRowsKept(client: pg.PoolClient, source: SourceAdapter, snapshot: ValidatedSnapshot): Promise<void> {
  if (snapshot.rowDropFloor === undefined) return;
  const after = await source.countLive(client, snapshot.scope, snapshot.stagingTable);
  if (after < snapshot.rowDropFloor) throw rowDropFailure('the merge left', after, snapshot.liveRows);
}
