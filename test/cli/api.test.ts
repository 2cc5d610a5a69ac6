import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePools } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';
import { startServerProcess } from '../support/server-process.js';
import { freePort } from '../api/support/api-server.js';
import { LOG_FLUSH_MS } from '../../api/telemetry/index.js';

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

  it('logs each request on stdout: held at most about a second while idle, and every line written before it exits', async () => {
    const port = await freePort();
    const api = await startServerProcess('cli/main.ts', ['api'], { DATABASE_URL: database.url, PORT: String(port), NORDPROP_API_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') });
    const requestLines = () => api.output.split('\n').filter((line) => line.includes('"msg":"request"') && line.includes('"route":"/health"'));
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    // Lines are written in blocks (api/telemetry): a lone line waits for the next flush, a second at most.
    const waitedFrom = Date.now();
    while (requestLines().length === 0 && Date.now() - waitedFrom < LOG_FLUSH_MS + 4000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requestLines(), 'the first request\'s line, within the flush interval').toHaveLength(1);
    for (let i = 0; i < 5; i++) expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    // Stopped at once: the lines still held are written as it exits.
    expect(await api.stop()).toBe(0);
    expect(requestLines(), 'every request logged, none lost at SIGTERM').toHaveLength(6);
    expect(JSON.parse(requestLines()[5])).toMatchObject({ method: 'GET', route: '/health', status: 200 });
  });
});
