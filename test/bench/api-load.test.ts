import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { closePools, getPool } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';
import { loadFixture } from '../api/support/api-server.js';

const run = promisify(execFile);

let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
  await loadFixture(getPool(database.url), 'no', 'api-registers.sql');
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('the API benchmark (bench/api-load.ts)', () => {
  it('reports the coordinate target against the bare server, with CPU per request, and leaves no client or sample table behind', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'bench/api-load.ts'), '--database-url', database.url, '--duration', '1', '--warmup', '0', '--runs', '1', '--connections', '1'],
      { cwd: PROJECT_ROOT, env: { ...process.env, NORDPROP_ENV_FILE: '' }, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout).toContain('server CPU ms/request');
    expect(stdout).toMatch(/1 connections: coordinates at \d+% of the bare HTTP server's throughput/);
    const db = getPool(database.url);
    const clients = await db.query(`SELECT count(*)::int AS n FROM api_client WHERE name = 'api-bench'`);
    expect(clients.rows[0].n).toBe(0);
    const tables = await db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename IN ('api_bench_point', 'api_bench_property')`);
    expect(tables.rows[0].n).toBe(0);
  });
});
