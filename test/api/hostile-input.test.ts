import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clientWithToken, type ApiResponse, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, type OpenApiDocument } from './support/openapi-check.js';
import { RawConnection, rawExchange, type RawResponse } from './support/raw-http.js';

/**
 * Input no client means, in every part of a request: NUL, unpaired surrogates, bytes that are
 * not UTF-8, requests Node's HTTP parser refuses, bodies over the limit. Each is a 4xx Problem
 * Details (the token endpoint: an RFC 6749 error) naming what was wrong, never a 5xx, and is
 * refused before anything is charged or stored. And answers holding personal data are not cached.
 */
let api: ApiTest;
let client: TestClient;
let port: number;

beforeAll(async () => {
  api = await startApiTest();
  port = Number(new URL(api.baseUrl).port);
  client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'] });
});
afterAll(async () => {
  await api?.stop();
});

const PROPERTY = '/properties/NO/0301-9001-1-0-0';

function expectProblem(response: ApiResponse | RawResponse, status: number, where: string): Record<string, unknown> {
  const text = 'text' in response ? response.text : response.body;
  const contentType = 'contentType' in response ? response.contentType : response.headers['content-type'];
  expect(response.status, `${where}: ${text.slice(0, 300)}`).toBe(status);
  expect(contentType, where).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text);
  expect(body, where).toMatchObject({ type: expect.stringMatching(/\/problems\//), title: expect.any(String), status, detail: expect.any(String), code: expect.any(String) });
  return body;
}

const callsToday = async () => (await call(api.baseUrl, 'GET', '/auth/me', { token: client.token })).body.callsToday as number;

const tokenForm = (form: Record<string, string>) =>
  call(api.baseUrl, 'POST', '/auth/token', { rawBody: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

/** A request with a body of raw bytes (fetch sends a Buffer as is). */
async function rawBodyCall(path: string, body: Buffer, headers: Record<string, string>): Promise<ApiResponse> {
  const response = await fetch(`${api.baseUrl}${path}`, { method: 'POST', headers, body });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return { status: response.status, headers: response.headers, contentType, text, body: /json/.test(contentType) ? JSON.parse(text) : text };
}

describe('NUL and unpaired surrogates', () => {
  it('in a path segment or a query parameter: 400 naming the parameter', async () => {
    const address = await call(api.baseUrl, 'GET', '/addresses/NO/abc%00def', { token: client.token });
    expect(expectProblem(address, 400, 'address').errors).toEqual([{ location: 'params/address', message: expect.stringMatching(/NUL/) }]);
    const token = await call(api.baseUrl, 'GET', `${PROPERTY}/transactions?pageToken=abc%00def`, { token: client.token });
    expect(expectProblem(token, 400, 'pageToken').errors).toEqual([{ location: 'querystring/pageToken', message: expect.stringMatching(/NUL/) }]);
  });

  it('in a JSON body: 400 naming the field, before the ids are charged or the response stored', async () => {
    for (const text of ['\u0000', 'abc\u0000', '\ud800', 'x\udc00y']) {
      const key = randomUUID();
      const before = await callsToday();
      const ids = [...Array(49).fill('0301-9001-1-0-0'), text];
      const response = await call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: client.token, body: { cadastreIds: ids }, headers: { 'idempotency-key': key } });
      const problem = expectProblem(response, 400, JSON.stringify(text));
      expect(problem.errors).toEqual([{ location: 'body/cadastreIds/49', message: expect.stringMatching(text.includes('\u0000') ? /NUL/ : /surrogate/) }]);
      // The refused request and the /auth/me call that reads the count; not the 49 more ids.
      expect(await callsToday()).toBe(before + 2);
      const stored = await api.db.query(`SELECT count(*)::int AS n FROM api_idempotency WHERE idempotency_key = $1`, [key]);
      expect(stored.rows[0].n).toBe(0);
    }
  });

  it('deep in a body or in a property name: 400 naming it by a JSON Pointer, its key escaped (RFC 6901)', async () => {
    const lookup = (body: unknown) => call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: client.token, body, headers: { 'idempotency-key': randomUUID() } });
    const nested = await lookup({ cadastreIds: ['0301-9001-1-0-0'], 'a/b~c': [{ fine: 'x' }, { deep: ['ok', 'bad\u0000'] }] });
    expect(expectProblem(nested, 400, 'nested').errors).toEqual([{ location: 'body/a~1b~0c/1/deep/1', message: expect.stringMatching(/NUL/) }]);
    const key = await lookup({ cadastreIds: ['0301-9001-1-0-0'], outer: { 'k\ud800ey': 'x' } });
    expect(expectProblem(key, 400, 'key').errors).toEqual([{ location: 'body/outer/k\uFFFDey', message: expect.stringMatching(/^property name .*surrogate/) }]);
  });

  it('in a webhook secret (a route that would have stored it): 400 naming the field', async () => {
    const response = await call(api.baseUrl, 'POST', '/subscriptions', {
      token: client.token,
      headers: { 'idempotency-key': randomUUID() },
      body: { target: { kind: 'PROPERTY', country: 'NO', cadastreId: '0301-9001-1-0-0' }, events: ['OWNER_CHANGED'], webhookUrl: 'https://hooks.example.org/nordprop', secret: `${'s'.repeat(20)}\u0000` },
    });
    expect(expectProblem(response, 400, 'secret').errors).toEqual([{ location: 'body/secret', message: expect.stringMatching(/NUL/) }]);
  });

  it('at the token endpoint, in the form or in HTTP Basic credentials: 400 invalid_request naming the field, before authentication', async () => {
    const form = await tokenForm({ grant_type: 'client_credentials', client_id: '\u0000', client_secret: 'x' });
    expect(form.status).toBe(400);
    expect(form.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('body/client_id') });
    for (const credentials of ['\u0000:x', '%00:x', `${client.clientId}:%00`]) {
      const basic = await call(api.baseUrl, 'POST', '/auth/token', {
        rawBody: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      });
      expect(basic.status, credentials).toBe(400);
      expect(basic.body, credentials).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/HTTP Basic client (id|secret).*NUL/) });
    }
  });
});

describe('bytes that are not UTF-8', () => {
  it('in a JSON body: 400, not replaced with U+FFFD', async () => {
    const lookup = Buffer.concat([Buffer.from('{"cadastreIds": ["0301-9001-1-0-0'), Buffer.from([0xff]), Buffer.from('"]}')]);
    const response = await rawBodyCall('/properties/NO/lookups', lookup, { authorization: `Bearer ${client.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() });
    expect(expectProblem(response, 400, 'lookup').detail).toMatch(/UTF-8/);
    // A secret of 16 characters once U+FFFD replaced the byte: it would have been stored so.
    const subscription = Buffer.concat([
      Buffer.from('{"target": {"kind": "PROPERTY", "country": "NO", "cadastreId": "0301-9001-1-0-0"}, "events": ["OWNER_CHANGED"], "webhookUrl": "https://hooks.example.org/nordprop", "secret": "'),
      Buffer.from('s'.repeat(15)),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const created = await rawBodyCall('/subscriptions', subscription, { authorization: `Bearer ${client.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() });
    expect(expectProblem(created, 400, 'subscription').detail).toMatch(/UTF-8/);
  });

  it('in a form body, raw or percent-encoded: 400 invalid_request', async () => {
    const raw = Buffer.concat([Buffer.from(`grant_type=client_credentials&client_secret=x&client_id=${client.clientId}`), Buffer.from([0xff])]);
    const response = await rawBodyCall('/auth/token', raw, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/UTF-8/) });
    const encoded = await call(api.baseUrl, 'POST', '/auth/token', { rawBody: `grant_type=client_credentials&client_secret=x&client_id=${client.clientId}%FF`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(encoded.status).toBe(400);
    expect(encoded.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/UTF-8/) });
  });
});

describe('requests the HTTP parser refuses', () => {
  const cases: [string, string, number][] = [
    ['NUL in a header value', `GET /health HTTP/1.1\r\nHost: a\r\nX-Test: a\0b\r\n\r\n`, 400],
    ['CR in a header value', `GET /health HTTP/1.1\r\nHost: a\r\nX-Test: a\rb\r\n\r\n`, 400],
    ['LF in a header name', `GET /health HTTP/1.1\r\nHost: a\r\nX-Te\nst: ab\r\n\r\n`, 400],
    ['an unknown method', `BREW /health HTTP/1.1\r\nHost: a\r\n\r\n`, 400],
    ['a raw 0xFF in the URL', `GET /addresses/NO/ab\xffcd HTTP/1.1\r\nHost: a\r\n\r\n`, 400],
    ['Transfer-Encoding with Content-Length', `POST /properties/NO/lookups HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`, 400],
    ['a Content-Length that is not a number', `POST /properties/NO/lookups HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n{}`, 400],
    ['two different Content-Lengths', `POST /properties/NO/lookups HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400],
    ['headers over the limit', `GET /health HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ];
  it.each(cases)('%s: Problem Details', async (where, request, status) => {
    const response = await rawExchange(port, Buffer.from(request, 'latin1'));
    const problem = expectProblem(response, status, where);
    expect(problem.traceId).toEqual(expect.any(String));
    expect(response.headers.connection).toBe('close');
  });
});

describe('a body over the limit', () => {
  const head = (length: number) =>
    `POST /properties/NO/lookups HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${client.token}\r\nContent-Type: application/json\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Length: ${length}\r\n\r\n`;

  it('a client that sends all 10 MB before it reads gets the 413, and the connection serves the next request', async () => {
    const body = Buffer.alloc(10 * 1024 * 1024, 'a');
    const connection = await RawConnection.open(port);
    try {
      await connection.send(Buffer.concat([Buffer.from(head(body.length)), body]), { readAfter: true });
      expectProblem(await connection.response(), 413, '10 MB');
      await connection.send('GET /health HTTP/1.1\r\nHost: a\r\n\r\n');
      expect((await connection.response()).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it('10 MB chunked, without a length: 413 too', async () => {
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const chunked = Buffer.concat([Buffer.from(head(0).replace('Content-Length: 0', 'Transfer-Encoding: chunked')), ...Array.from({ length: 40 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n')]);
    expectProblem(await rawExchange(port, chunked, { readAfter: true }), 413, 'chunked');
  });
});

describe('Cache-Control: no-store on answers holding personal data', () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    document = (await fetchOpenApi(api.baseUrl)).document;
  });

  it('owners, sections, transactions, comparables, tenants and /auth/me carry it; other reads do not', async () => {
    const personal = ['/owners', '/sections', '/transactions', '/comparable-transactions', '/tenants'].map((p) => `${PROPERTY}${p}`).concat('/auth/me');
    for (const path of personal) {
      const response = await call(api.baseUrl, 'GET', path, { token: client.token });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
    }
    // Its errors too: the route decides, not the answer.
    const missing = await call(api.baseUrl, 'GET', '/properties/NO/0301-1-1-0-0/owners', { token: client.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    for (const path of [PROPERTY, `${PROPERTY}/buildings`, '/health']) {
      const response = await call(api.baseUrl, 'GET', path, { token: client.token });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBeNull();
    }
  });

  it('the OpenAPI description documents it on exactly those operations', () => {
    const documented = Object.values(document.paths)
      .flatMap((operations) => Object.values(operations))
      .filter((operation) => (operation.responses['200'] as { headers?: Record<string, unknown> } | undefined)?.headers?.['Cache-Control'])
      .map((operation) => operation.operationId)
      .sort();
    // issueToken: not personal data, but RFC 6749 section 5.1 has no cache keep a token either (docs/api.md, "Caching").
    expect(documented).toEqual(['getIdentity', 'issueToken', 'listComparableTransactions', 'listPropertyOwners', 'listPropertySections', 'listPropertyTenants', 'listPropertyTransactions']);
  });
});
