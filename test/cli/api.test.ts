import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';
import { startServerProcess } from '../support/server-process.js';
import { freePort } from '../api/support/api-server.js';

let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('nordprop api', () => {
  it('listens on PORT, serves the API, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const api = await startServerProcess('cli/main.ts', ['api'], { DATABASE_URL: database.url, PORT: String(port), NORDPROP_API_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(api.output).toContain('nordprop API listening');
    expect(api.output).toContain(`http://127.0.0.1:${port}`);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'UP', version: '0.3.0' });
    const description = await (await fetch(`http://127.0.0.1:${port}/openapi.yaml`)).text();
    expect(description).toContain(`- url: http://127.0.0.1:${port}`);
    expect(await api.stop()).toBe(0);
  });
});
