import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { loadConfig, PROJECT_ROOT } from '../../../lib/config.js';
import { getPool } from '../../../lib/db.js';
import { buildApp } from '../../../api/app.js';
import { createClient, type IssuedCredentials, type NewClient } from '../../../api/auth/clients.js';
import type { Scope } from '../../../api/auth/scopes.js';
import { recordResponse } from './response-log.js';
import { freePort } from '../../../lib/net/free-port.js';

export { freePort };


export interface ApiServer {
  app: FastifyInstance;
  baseUrl: string;
  close(): Promise<void>;
}

/** The real app over a test database, listening on loopback. Several may share one database and key. */
export async function startApiServer(db: pg.Pool, masterKey: Buffer = TEST_MASTER_KEY): Promise<ApiServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // The hot lookups' pool over the same database, as the API's server sets it up.
  const { app } = await buildApp({ db, lookups: getPool(db.options.connectionString, 'api-lookup'), config: loadConfig(), masterKey, baseUrl });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, baseUrl, close: () => app.close() };
}

export const TEST_MASTER_KEY = randomBytes(32);

export async function loadFixture(db: pg.Pool, country: 'no' | 'se', name: string): Promise<void> {
  await db.query(await readFile(path.join(PROJECT_ROOT, 'test/fixtures', country, name), 'utf8'));
}

export interface TestClient extends IssuedCredentials {
  token: string;
}

/** A client issued as `nordprop clients create` does, with a token from the real token endpoint. */
export async function clientWithToken(db: pg.Pool, baseUrl: string, options: Partial<NewClient> & { scopes: Scope[] }): Promise<TestClient> {
  const issued = await createClient(db, { tier: 'enterprise', sandbox: false, ...options });
  const response = await fetch(`${baseUrl}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret }),
  });
  const body = (await response.json()) as { access_token: string };
  if (response.status !== 200) throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return { ...issued, token: body.access_token };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  contentType: string;
  body: any;
  text: string;
}

/** One HTTP request to the running API; every response is logged for the OpenAPI check. */
export async function call(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${pathAndQuery}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (/json/.test(contentType) && text) parsed = JSON.parse(text);
  const result = { status: response.status, headers: response.headers, contentType, body: parsed, text };
  recordResponse({ method, path: pathAndQuery.split('?')[0], status: response.status, contentType, body: parsed });
  return result;
}

export const get = (baseUrl: string, pathAndQuery: string, token?: string) => call(baseUrl, 'GET', pathAndQuery, { token });
