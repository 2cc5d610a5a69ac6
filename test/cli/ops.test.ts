import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { closePools } from '../../lib/db.js';
import { createTestDatabase } from '../support/database.js';
import { startServerProcess } from '../support/server-process.js';
import { freePort } from '../api/support/api-server.js';

const exec = promisify(execFile);
const SECRET = 'operator-secret-for-this-test';

let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

describe('nordprop ops', () => {
  it('serves the console alone on its own port, behind the operator credential, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const ops = await startServerProcess('cli/main.ts', ['ops', '--port', String(port)], { DATABASE_URL: database.url, NORDPROP_OPS_TOKEN: SECRET });
    expect(ops.output).toContain(`nordprop ops console listening on http://127.0.0.1:${port}/ops`);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/ops`)).status).toBe(401);
    const page = await fetch(`${base}/ops`, { headers: { authorization: `Basic ${Buffer.from(`me:${SECRET}`).toString('base64')}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; /);
    expect(await page.text()).toContain('<h1>The last 30 nights</h1>');
    // Only the console: none of the API.
    expect((await fetch(`${base}/openapi.yaml`)).status).toBe(404);
    expect(await ops.stop()).toBe(0);
  });

  it('refuses to start without NORDPROP_OPS_TOKEN', async () => {
    const failed = await exec(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli/main.ts'), 'ops'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NORDPROP_ENV_FILE: '', DATABASE_URL: database.url, NORDPROP_OPS_TOKEN: '' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('NORDPROP_OPS_TOKEN is not set: the console has no credential to ask for (docs/operations.md)\n');
  });
});
