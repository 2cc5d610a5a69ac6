import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOAD_SETTINGS, machineInfo, serverUptime } from '../../bench/machine.js';
import { PROJECT_ROOT } from '../../lib/config.js';
import { testDatabaseSession } from '../support/database.js';

/** The backticked setting names in the first column of the README's load-host table. */
async function suggestedSettings(): Promise<string[]> {
  const readme = await readFile(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = readme.split('### PostgreSQL on a load host')[1]?.split(/\n##/)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
}

describe('the benchmark machine line', () => {
  const session = testDatabaseSession();

  it('names every setting the README suggests for a load host, as the server runs it', async () => {
    const suggested = await suggestedSettings();
    expect(suggested).toContain('shared_buffers');
    expect(suggested.length).toBeGreaterThanOrEqual(6);
    for (const name of suggested) expect(LOAD_SETTINGS).toContain(name);

    const { postgresSettings } = await machineInfo(session());
    const live = await session().query<{ name: string; setting: string }>(`SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1)`, [suggested]);
    expect(live.rows).toHaveLength(suggested.length);
    for (const { name, setting } of live.rows) expect(postgresSettings[name]).toBe(setting);
  });

  it('records how long the server had been up, as the server counts it', async () => {
    const { serverUpSeconds } = await machineInfo(session());
    const live = await session().query<{ up: number }>(`SELECT extract(epoch FROM now() - pg_postmaster_start_time())::float8 AS up`);
    expect(serverUpSeconds).toBeGreaterThan(0);
    expect(Math.abs(serverUpSeconds! - live.rows[0].up)).toBeLessThan(60);
    expect(serverUptime(95)).toBe('up 2 min');
    expect(serverUptime(5 * 3600)).toBe('up 5.0 h');
    expect(serverUptime(3 * 86400)).toBe('up 3.0 days');
  });
});
