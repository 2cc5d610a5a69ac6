import type pg from 'pg';

/** Helpers for the end-to-end tests of the energy, certification and permit sources (table digests: test/support/live-snapshot.ts). */

/** The run's rejects of one source, by file position. */
export async function rejectsOf(pool: pg.Pool, runId: string, sourceId: string): Promise<Record<number, string>> {
  const result = await pool.query<{ position: string; reason: string }>(
    `SELECT position, reason FROM source_reject WHERE run_id = $1 AND source_id = $2 AND disposition = 'rejected' ORDER BY position`,
    [runId, sourceId],
  );
  return Object.fromEntries(result.rows.map((row) => [Number(row.position), row.reason]));
}

/** Runs `work` with the reject-rate ceiling lifted, for a fixture made mostly of bad rows. */
export async function withRejectCeiling<T>(rate: string, work: () => Promise<T>): Promise<T> {
  const before = process.env.NORDPROP_MAX_REJECT_RATE;
  process.env.NORDPROP_MAX_REJECT_RATE = rate;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.NORDPROP_MAX_REJECT_RATE;
    else process.env.NORDPROP_MAX_REJECT_RATE = before;
  }
}
