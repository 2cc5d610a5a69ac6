import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOAD_SETTINGS, machineInfo } from '../../bench/machine.js';
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
});
