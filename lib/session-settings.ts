import type pg from 'pg';

/**
 * Runs `work` with planner/executor settings changed for the caller's transaction
 * (set_config(…, true)), then puts back the values they had, so one statement's tuning does not
 * leak into the rest of a computation. Outside a transaction the settings last one statement.
 */
export async function withSettings<T>(client: pg.PoolClient, settings: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const names = Object.keys(settings);
  const previous = await client.query<{ name: string; value: string }>(
    `SELECT name, current_setting(name) AS value FROM unnest($1::text[]) AS name`,
    [names],
  );
  await client.query(`SELECT set_config(name, value, true) FROM unnest($1::text[], $2::text[]) AS s(name, value)`, [names, Object.values(settings)]);
  try {
    return await work();
  } finally {
    await client.query(
      `SELECT set_config(name, value, true) FROM unnest($1::text[], $2::text[]) AS s(name, value)`,
      [previous.rows.map((r) => r.name), previous.rows.map((r) => r.value)],
    );
  }
}
