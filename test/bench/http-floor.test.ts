import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools, getPool } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';
import { startServerProcess } from '../support/server-process.js';
import { freePort, loadFixture } from '../api/support/api-server.js';

let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
  await loadFixture(getPool(database.url), 'no', 'api-registers.sql');
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('the benchmark\'s bare HTTP server (bench/http-floor.ts)', () => {
  it('answers a coordinate with the endpoint\'s SQL and nothing else, and stops on SIGTERM', async () => {
    const port = await freePort();
    const floor = await startServerProcess('bench/http-floor.ts', [], { DATABASE_URL: database.url, PORT: String(port) });
    const base = `http://127.0.0.1:${port}`;
    // The fixture's Oslo parcel: the same property the API's coordinate endpoint answers (test/api/auth.test.ts).
    const hit = await fetch(`${base}/coordinates/NO/58.0005/3.0005`);
    expect(hit.status).toBe(200);
    const row = (await hit.json()) as { cadastre_id: string; buildings: unknown; addresses: unknown };
    expect(row.cadastre_id).toBe('0301-9001-1-0-0');
    expect(Array.isArray(row.buildings)).toBe(true);
    expect(Array.isArray(row.addresses)).toBe(true);
    // Outside every parcel: the statement finds no row.
    expect(await (await fetch(`${base}/coordinates/NO/70.5/25.5`)).json()).toEqual({});
    // No token, no API: anything else is 404.
    expect((await fetch(`${base}/properties/NO/0301-9001-1-0-0`)).status).toBe(404);
    expect(await floor.stop()).toBe(0);
  });
});
