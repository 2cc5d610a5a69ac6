import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools, getPool } from '../../lib/db.js';
import { backendPids, measureCpu, processCpuMs } from '../../bench/process-cpu.js';
import { createTestDatabase } from '../support/database.js';

/** The API benchmark's CPU figures: the server process's and its PostgreSQL sessions', per request. */
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('CPU per request (bench/process-cpu.ts)', () => {
  it('counts the CPU a busy process and the named sessions used, divided by the requests', async () => {
    // A server stand-in that spins for a while, says so, and stays up: its CPU is in the figure.
    const busy = spawn(process.execPath, ['-e', 'const end = Date.now() + 300; while (Date.now() < end); console.log("spun"); setTimeout(() => {}, 60_000);']);
    const spun = new Promise((resolve) => busy.stdout!.once('data', resolve));
    const lookups = getPool(database.url, 'api-lookup');
    const name = new URL(database.url).pathname.slice(1);
    await lookups.query('SELECT 1');
    const { result, cpu } = await measureCpu(
      async () => {
        // Work in a session of the API's pools: a statement that spins in PostgreSQL.
        await lookups.query(`SELECT count(*) FROM generate_series(1, 2000000)`);
        await spun;
        return { requests: 4 };
      },
      () => backendPids(getPool(database.url, 'api'), name, 'nordprop-api'),
      busy.pid,
    );
    expect(result.requests).toBe(4);
    expect(cpu!.serverMsPerRequest).toBeGreaterThan(0);
    expect(cpu!.postgresMsPerRequest).toBeGreaterThan(0);
    // A process that has ended has no figure.
    const ended = new Promise((resolve) => busy.once('exit', resolve));
    busy.kill();
    await ended;
    expect(await processCpuMs(busy.pid!)).toBeUndefined();
  });
});
