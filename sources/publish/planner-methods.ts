import type pg from 'pg';

/**
 * Runs `work` with the planner's methods `off` (`nestloop`, `hashjoin`, `seqscan`, …: each an
 * `enable_<method>` setting) disabled in the transaction, then puts back what the session had (a
 * load host may have turned one off for good; `on` would override it for the rest of the publish).
 * Not after a failure: the transaction is then aborted, the setting goes with it, and a statement
 * sent to restore them would fail in its turn and hide the failure's reason ("current transaction
 * is aborted") from the run ledger.
 */
export async function withPlannerMethodsOff<T>(client: pg.PoolClient, off: string[], work: () => Promise<T>): Promise<T> {
  const names = off.map((method) => `enable_${method}`);
  // The CTE is materialized, so the settings are read before the same statement changes them.
  const before = await client.query<Record<string, string>>(
    `WITH was AS MATERIALIZED (SELECT ${names.map((name) => `current_setting('${name}') AS ${name}`).join(', ')})
     SELECT was.*, ${names.map((name) => `set_config('${name}', 'off', true)`).join(', ')} FROM was`,
  );
  const result = await work();
  const was = before.rows[0];
  await client.query(`SELECT ${names.map((name, i) => `set_config('${name}', $${i + 1}, true)`).join(', ')}`, names.map((name) => was[name]));
  return result;
}
