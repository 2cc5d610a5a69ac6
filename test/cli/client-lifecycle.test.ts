import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { closePools, getPool } from '../../lib/db.js';
import { verifySecret } from '../../api/auth/secret-hash.js';
import { REVOCATION_CHECK_MS } from '../../api/auth/tokens.js';
import { createTestDatabase } from '../support/database.js';
import { call, get, startApiServer, type ApiServer } from '../api/support/api-server.js';

const run = promisify(execFile);
let database: { url: string; drop: () => Promise<void> };
let server: ApiServer;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startApiServer(getPool(database.url));
});
afterAll(async () => {
  await server?.close();
  await closePools();
  await database?.drop();
});

/** `nordprop …` from the sources, over this file's database: exit code, parsed --json output, stderr. */
async function nordprop(...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli/main.ts'), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NORDPROP_ENV_FILE: '', DATABASE_URL: database.url },
    });
    return { code: 0, json: stdout.trim() ? JSON.parse(stdout) : undefined, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, json: failed.stdout?.trim() ? JSON.parse(failed.stdout) : undefined, stderr: failed.stderr };
  }
}

const token = (clientId: string, clientSecret: string) =>
  call(server.baseUrl, 'POST', '/auth/token', {
    rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

async function untilStatus(bearer: string, status: number): Promise<number> {
  const deadline = Date.now() + 5 * REVOCATION_CHECK_MS;
  let answer = (await get(server.baseUrl, '/auth/me', bearer)).status;
  while (answer !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = (await get(server.baseUrl, '/auth/me', bearer)).status;
  }
  return answer;
}

describe('nordprop clients disable | enable | delete | rotate-secret', () => {
  it('disable and enable, with --json; a disabled client’s token stops working', async () => {
    const created = (await nordprop('clients', 'create', '--scopes', 'properties.read', '--tier', 'basic', '--json')).json;
    const issued = await token(created.clientId, created.clientSecret);
    expect((await get(server.baseUrl, '/auth/me', issued.body.access_token)).status).toBe(200);

    const disabled = await nordprop('clients', 'disable', created.clientId, '--json');
    expect(disabled).toMatchObject({ code: 0, json: { clientId: created.clientId, found: true, status: 'disabled', changed: true } });
    expect(await untilStatus(issued.body.access_token, 401)).toBe(401);
    expect((await token(created.clientId, created.clientSecret)).body.error).toBe('invalid_client');
    expect((await nordprop('clients', 'disable', created.clientId, '--json')).json).toMatchObject({ found: true, changed: false });
    const listed = (await nordprop('clients', 'list', '--json')).json.find((c: { clientId: string }) => c.clientId === created.clientId);
    expect(listed.disabledAt).toEqual(expect.any(String));

    expect((await nordprop('clients', 'enable', created.clientId, '--json')).json).toMatchObject({ clientId: created.clientId, status: 'enabled', changed: true });
    expect((await token(created.clientId, created.clientSecret)).status).toBe(200);
  });

  it('rotate-secret prints the new secret once; the old secret and its tokens stop working', async () => {
    const created = (await nordprop('clients', 'create', '--scopes', 'properties.read', '--tier', 'basic', '--sandbox', '--json')).json;
    const issued = await token(created.clientId, created.clientSecret);
    const rotated = await nordprop('clients', 'rotate-secret', created.clientId, '--json');
    expect(rotated.code).toBe(0);
    expect(rotated.json).toEqual({ clientId: created.clientId, clientSecret: expect.stringMatching(/^npsk_test_/) });
    expect(rotated.json.clientSecret).not.toBe(created.clientSecret);
    const stored = await getPool(database.url).query(`SELECT secret_hash FROM api_client WHERE client_id = $1`, [created.clientId]);
    expect(stored.rows[0].secret_hash).not.toContain(rotated.json.clientSecret);
    expect(await verifySecret(rotated.json.clientSecret, stored.rows[0].secret_hash)).toBe(true);
    expect(await untilStatus(issued.body.access_token, 401)).toBe(401);
    expect((await token(created.clientId, created.clientSecret)).body.error).toBe('invalid_client');
    expect((await token(created.clientId, rotated.json.clientSecret)).status).toBe(200);
  });

  it('delete removes the client from the list; a second delete and an unknown id exit 1, a malformed id exits 2', async () => {
    const created = (await nordprop('clients', 'create', '--scopes', 'properties.read', '--tier', 'basic', '--json')).json;
    const issued = await token(created.clientId, created.clientSecret);
    expect((await nordprop('clients', 'delete', created.clientId, '--json'))).toMatchObject({ code: 0, json: { clientId: created.clientId, status: 'deleted', changed: true } });
    expect(await untilStatus(issued.body.access_token, 401)).toBe(401);
    expect((await nordprop('clients', 'list', '--json')).json.map((c: { clientId: string }) => c.clientId)).not.toContain(created.clientId);
    const again = await nordprop('clients', 'delete', created.clientId, '--json');
    expect(again).toMatchObject({ code: 1, json: { clientId: created.clientId, found: false } });
    expect(again.stderr).toContain(`no client ${created.clientId}`);
    expect((await nordprop('clients', 'rotate-secret', 'np_live_00000000000000000000', '--json')).code).toBe(1);
    const malformed = await nordprop('clients', 'disable', 'not-a-client');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/value 'not-a-client' is invalid for argument 'clientId'/);
  });
});
