import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { closePools } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';
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
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli/main.ts'), 'api'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NORDPROP_ENV_FILE: '', DATABASE_URL: database.url, PORT: String(port), NORDPROP_API_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the API did not start: ${output}`)), 60_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('nordprop API listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    });
    expect(output).toContain(`http://127.0.0.1:${port}`);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'UP', version: '0.3.0' });
    const description = await (await fetch(`http://127.0.0.1:${port}/openapi.yaml`)).text();
    expect(description).toContain(`- url: http://127.0.0.1:${port}`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
