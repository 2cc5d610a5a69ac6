import type pg from 'pg';

/** A process deletes the store's old rate windows once in this many of the calls it counted. */
export const SWEEP_EVERY_CALLS = 1000;

/**
 * Deletes the rate windows older than ten minutes (api_sweep_rate_windows,
 * schema/1764001000000_api-calls-charged-in-windows.sql) now and then, whichever way the calls
 * were counted: every counted call of every subject adds window rows (one per subject, second and
 * count shard), and a process whose calls were all counted in their reads' own statements never
 * swept before, so the table grew by a row a second per client and session for as long as it ran.
 * The sweep runs beside the counts, not before them: a slow or failing sweep delays no answer.
 */
export class RateWindowSweeper {
  private sinceSweep = 0;
  /** Where a failed sweep is reported (the API's log, app.ts); it is tried again a period later. */
  onError: (error: unknown) => void = () => undefined;

  constructor(
    private readonly db: pg.Pool,
    private readonly every = SWEEP_EVERY_CALLS,
  ) {}

  counted(calls: number): void {
    this.sinceSweep += calls;
    if (this.sinceSweep < this.every) return;
    this.sinceSweep = 0;
    this.db.query(`SELECT api_sweep_rate_windows()`).catch((error: unknown) => this.onError(error));
  }
}
