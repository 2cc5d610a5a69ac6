import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithToken, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, type OpenApiDocument } from './support/openapi-check.js';
import { rawExchange } from './support/raw-http.js';
import { insertRun, insertSourceRun } from '../../lib/run-ledger.js';

/**
 * Hostile input generated from the served `/openapi.yaml`: for every operation, every parameter
 * and every body field, classes of input no client means (wrong types, bounds, NaN/Infinity/1e309,
 * overlong strings, NUL, lone surrogates, invalid percent-encoding and UTF-8, SQL injection and
 * path traversal strings, 1 MB and 10 MB bodies, 10,000 nested arrays, wrong media types,
 * duplicate query parameters, unknown methods), sent as a client holding every scope so it
 * reaches past the auth layer. No answer may be a 5xx or time out; every 4xx must be complete
 * Problem Details (the token endpoint's 400 and 401: an RFC 6749 error); the process answers
 * /health afterwards. Requests go through app.inject in a bounded pool, except what only a
 * real socket can carry (parser-level errors, a client writing 10 MB before it reads). The ops
 * console, which the description leaves out, gets the same hostile texts in its path and query
 * and as its credential.
 */
let api: ApiTest;
let app: FastifyInstance;
let port: number;
let document: OpenApiDocument;
let client: TestClient;
const OPS_SECRET = randomBytes(18).toString('base64url');

beforeAll(async () => {
  // The token endpoint and the parser-level cases are anonymous: one IP, thousands of calls.
  process.env.NORDPROP_API_ANONYMOUS_BURST = '10000000';
  // The ops console is registered only with an operator credential.
  process.env.NORDPROP_OPS_TOKEN = OPS_SECRET;
  // The valid webhook URL's host is allowed outright: no DNS lookup per subscription in the sweep.
  process.env.NORDPROP_WEBHOOK_ALLOWED_HOSTS = 'hooks.example.org';
  api = await startApiTest();
  app = api.server.app;
  port = Number(new URL(api.baseUrl).port);
  document = (await fetchOpenApi(api.baseUrl)).document;
  client = await clientWithToken(api.db, api.baseUrl, {
    scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'],
    burstLimit: 10_000_000,
    dailyCallLimit: 100_000_000,
  });
});
afterAll(async () => {
  delete process.env.NORDPROP_OPS_TOKEN;
  await api?.stop();
});

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  template: string;
  operationId: string;
  parameters: Parameter[];
  body?: { mediaType: string; schema: Schema };
}

const deref = (schema: Schema | undefined): Schema => {
  if (!schema?.$ref) return schema ?? {};
  const name = String(schema.$ref).replace('#/components/schemas/', '');
  return deref((document.components as { schemas: Record<string, Schema> }).schemas[name]);
};

function operations(): Operation[] {
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods as Record<string, any>).map(([method, operation]) => {
      const [mediaType, content] = Object.entries<{ schema: Schema }>(operation.requestBody?.content ?? {})[0] ?? [];
      return {
        method: method.toUpperCase(),
        template,
        operationId: operation.operationId,
        parameters: operation.parameters ?? [],
        body: mediaType ? { mediaType, schema: deref(content.schema) } : undefined,
      };
    }),
  );
}

/** Valid values by name: what reaches the handlers (a property, a company and an area of the fixtures). */
const VALID: Record<string, () => unknown> = {
  country: () => 'NO',
  cadastreId: () => '0301-9001-1-0-0',
  address: () => 'Fjordgata 12',
  lat: () => '58.0005',
  lon: () => '3.0005',
  scheme: () => '0192',
  id: () => '999888777',
  areaId: () => '0301',
  municipalityCode: () => '0301',
  planId: () => 'S-9001',
  documentId: () => 'doc-1',
  subscriptionId: () => randomUUID(),
  exp: () => '9999999999',
  sig: () => 'c2ln',
  pageSize: () => '10',
  'idempotency-key': () => randomUUID(),
  client_id: () => client.clientId,
  client_secret: () => client.clientSecret,
  grant_type: () => 'client_credentials',
  scope: () => 'properties.read',
  cadastreIds: () => ['0301-9001-1-0-0', '0301-9001-2-0-0'],
  webhookUrl: () => 'https://hooks.example.org/nordprop',
  secret: () => 'a-webhook-secret-of-32-characters',
  target: () => ({ kind: 'PROPERTY', country: 'NO', cadastreId: '0301-9001-1-0-0' }),
  events: () => ['OWNER_CHANGED'],
};

/** A valid value of a schema, by name when known, else from the schema itself. */
function sample(schema: Schema, name?: string): unknown {
  if (name && VALID[name]) return VALID[name]();
  const s = deref(schema);
  if (s.oneOf || s.anyOf) return sample((s.oneOf ?? s.anyOf)[0]);
  if (s.enum) return s.enum[0];
  if (s.examples) return s.examples[0];
  if (s.type === 'object') return Object.fromEntries((s.required ?? []).map((key: string) => [key, sample(s.properties?.[key] ?? {}, key)]));
  if (s.type === 'array') return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items ?? {}));
  if (s.type === 'integer' || s.type === 'number') return s.default ?? s.minimum ?? 1;
  if (s.format === 'uuid') return randomUUID();
  return 'x'.repeat(Math.max(1, s.minLength ?? 1));
}

/** Hostile text for a path, query or header value, or a form field: raw (encoded where it goes) or already percent-encoded. */
type Hostile = { label: string; text: string } | { label: string; encoded: string };
const TEXTS: Hostile[] = [
  ...['abc', 'true', 'null', '[]', '{}', '-1', '0', '1.5', '0x1F', '1e3', ' 1', '+1', '٣'].map((text) => ({ label: 'wrong type', text })),
  ...['NaN', 'Infinity', '-Infinity', '1e309', '-1e309', '1e-400', '9'.repeat(400)].map((text) => ({ label: 'not a finite number', text })),
  { label: 'overlong', text: 'x'.repeat(10_000) },
  { label: 'overlong multibyte', text: 'ø'.repeat(3_000) },
  { label: 'empty', text: '' },
  { label: 'NUL', text: '\0' },
  { label: 'NUL inside', text: 'abc\0def' },
  { label: 'control characters', text: 'a\u0001\u001f\u007fb' },
  { label: 'CRLF injection', text: 'a\r\nSet-Cookie: x=1' },
  { label: 'lone high surrogate', text: 'abc\ud800def' },
  { label: 'lone low surrogate', text: '\udc00' },
  { label: 'surrogate encoded as UTF-8 (CESU)', encoded: '%ED%A0%80abc' },
  ...['%', '%G0', '%E0%A4%A', '%C3%28', '%FF%FE', '%C0%AF', '%F4%90%80%80', 'abc%'].map((encoded) => ({ label: 'invalid percent-encoding', encoded })),
  ...["' OR '1'='1", "1; DROP TABLE api_client;--", "0301-9001-1-0-0' UNION SELECT secret_hash FROM api_client--", '$$; SELECT pg_sleep(30); $$', '\\x27; --'].map((text) => ({ label: 'SQL injection', text })),
  ...['../../../etc/passwd', '..\\..\\windows\\win.ini', '/etc/passwd', '....//....//etc/passwd'].map((text) => ({ label: 'path traversal', text })),
  { label: 'encoded traversal', encoded: '..%2F..%2F..%2Fetc%2Fpasswd' },
  { label: 'double-encoded', encoded: '%252e%252e%252f' },
  ...['<script>alert(1)</script>', '${jndi:ldap://x/a}', '%s%s%s%n', '{{7*7}}', 'Ærøskøbing 🏠', 'e\u0301', '\u202etxt.exe'].map((text) => ({ label: 'odd text', text })),
];

const onePerClass = (values: Hostile[]) => values.filter((value, i) => values.findIndex((other) => other.label === value.label) === i);

/** Bounds and types of a parameter's own schema. */
function schemaTexts(schema: Schema): Hostile[] {
  const s = deref(schema);
  const out: Hostile[] = [];
  if (s.minimum !== undefined) out.push({ label: 'below minimum', text: String(s.minimum - 1) }, { label: 'below minimum', text: String(s.minimum - 0.5) });
  if (s.maximum !== undefined) out.push({ label: 'above maximum', text: String(s.maximum + 1) }, { label: 'above maximum', text: String(s.maximum * 1e300) });
  if (s.type === 'integer') out.push({ label: 'not an integer', text: '2.5' }, { label: 'beyond 2^53', text: '9007199254740993' }, { label: 'beyond int64', text: '99999999999999999999' });
  if (s.minLength) out.push({ label: 'below minLength', text: 'a'.repeat(s.minLength - 1) });
  if (s.maxLength) out.push({ label: 'above maxLength', text: 'a'.repeat(s.maxLength + 1) });
  return out;
}

/** Percent-encoding for a URL; lone surrogates (which encodeURIComponent refuses) as the bytes a broken client sends. */
function encode(value: Hostile): string {
  if ('encoded' in value) return value.encoded;
  return [...value.text].map((ch) => (/^[\ud800-\udfff]$/.test(ch) ? `%ED%${(0xa0 + ((ch.charCodeAt(0) >> 6) & 0x1f)).toString(16).toUpperCase()}%80` : encodeURIComponent(ch))).join('');
}
const decoded = (value: Hostile) => ('text' in value ? value.text : value.encoded);

interface Attempt {
  where: string;
  operation: Operation;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** Sent without a valid token on purpose. */
  anonymous?: boolean;
}

function urlOf(operation: Operation, replace: Record<string, string> = {}, query?: string): string {
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => replace[name] ?? encodeURIComponent(String(sample(paramSchema(operation, name), name))));
  const required = operation.parameters.filter((p) => p.in === 'query' && p.required);
  const defaults = required.map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, p.name)))}`).join('&');
  const search = query === undefined ? defaults : query;
  return search ? `${path}?${search}` : path;
}
const paramSchema = (operation: Operation, name: string) => operation.parameters.find((p) => p.name === name)?.schema ?? {};

function baseHeaders(operation: Operation): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${client.token}` };
  for (const p of operation.parameters.filter((p) => p.in === 'header')) headers[p.name] = String(sample(p.schema, p.name));
  if (operation.body) headers['content-type'] = operation.body.mediaType;
  return headers;
}

const isForm = (operation: Operation) => operation.body?.mediaType === 'application/x-www-form-urlencoded';
function serialize(operation: Operation, body: unknown): string {
  if (!isForm(operation)) return JSON.stringify(body);
  return Object.entries(body as Record<string, unknown>).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');
}
const validBody = (operation: Operation) => sample(operation.body!.schema) as Record<string, unknown>;

function* attempts(): Generator<Attempt> {
  for (const operation of operations()) {
    const base = { operation, method: operation.method };
    const bodyText = () => (operation.body ? serialize(operation, { ...validBody(operation), ...(isForm(operation) ? { client_id: client.clientId, client_secret: client.clientSecret } : {}) }) : undefined);
    // Path and query parameters, then header parameters.
    for (const parameter of operation.parameters) {
      for (const value of [...TEXTS, ...schemaTexts(parameter.schema)]) {
        const where = `${operation.operationId} ${parameter.in} ${parameter.name}: ${value.label} ${JSON.stringify(decoded(value)).slice(0, 40)}`;
        if (parameter.in === 'path') {
          yield { ...base, where, url: urlOf(operation, { [parameter.name]: encode(value) }), headers: baseHeaders(operation), payload: bodyText() };
        } else if (parameter.in === 'query') {
          const others = operation.parameters.filter((p) => p.in === 'query' && p.required && p.name !== parameter.name).map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, p.name)))}`);
          yield { ...base, where, url: urlOf(operation, {}, [...others, `${parameter.name}=${encode(value)}`].join('&')), headers: baseHeaders(operation), payload: bodyText() };
        } else if ('text' in value && !/[\r\n]/.test(value.text)) {
          yield { ...base, where, url: urlOf(operation), headers: { ...baseHeaders(operation), [parameter.name]: value.text }, payload: bodyText() };
        }
      }
      if (parameter.in === 'query') {
        const valid = encodeURIComponent(String(sample(parameter.schema, parameter.name)));
        for (const [label, query] of [
          ['duplicate', `${parameter.name}=${valid}&${parameter.name}=${valid}`],
          ['duplicate, different', `${parameter.name}=${valid}&${parameter.name}=2`],
          ['array syntax', `${parameter.name}[]=${valid}`],
          ['object syntax', `${parameter.name}[a]=${valid}`],
          ['without a value', parameter.name],
          ['empty', `${parameter.name}=`],
        ]) {
          yield { ...base, where: `${operation.operationId} query ${parameter.name}: ${label}`, url: urlOf(operation, {}, [urlOf(operation).split('?')[1], query].filter(Boolean).join('&')), headers: baseHeaders(operation), payload: bodyText() };
        }
      }
      if (parameter.in === 'header') {
        const headers = baseHeaders(operation);
        delete headers[parameter.name];
        yield { ...base, where: `${operation.operationId} header ${parameter.name}: missing`, url: urlOf(operation), headers, payload: bodyText() };
      }
    }
    yield* authorizationAttempts(operation, bodyText);
    yield { ...base, where: `${operation.operationId}: unknown query parameter`, url: urlOf(operation, {}, [urlOf(operation).split('?')[1], 'zzz=1'].filter(Boolean).join('&')), headers: baseHeaders(operation), payload: bodyText() };
    if (operation.body) yield* bodyAttempts(operation);
  }
  yield* methodAttempts();
}

/**
 * The Authorization header, where the API reads it: HTTP Basic client credentials at the token
 * endpoint, a bearer token on the first operation that needs one (its answer: 401).
 */
function* authorizationAttempts(operation: Operation, bodyText: () => string | undefined): Generator<Attempt> {
  const basic = (credentials: Buffer | string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
  const values: [string, string][] = [];
  if (operation.operationId === 'issueToken') {
    for (const value of onePerClass(TEXTS)) {
      const text = encode(value);
      values.push([`Basic client id ${value.label}`, basic(`${text}:${encodeURIComponent(client.clientSecret)}`)], [`Basic secret ${value.label}`, basic(`${client.clientId}:${text}`)]);
      if ('text' in value && !/[\ud800-\udfff]/.test(value.text)) values.push([`Basic raw client id ${value.label}`, basic(`${value.text}:x`)]);
    }
    values.push(['Basic not UTF-8', basic(Buffer.from([0x61, 0xff, 0x3a, 0x62]))], ['Basic without a colon', basic('abc')], ['Basic not base64', 'Basic %%%'], ['Basic empty', 'Basic ']);
  } else if (operation.operationId === firstTokenOperation()) {
    for (const value of TEXTS) if ('text' in value && !/[\r\n]/.test(value.text)) values.push([`Bearer ${value.label}`, `Bearer ${value.text}`], [`raw ${value.label}`, value.text]);
  }
  for (const [label, authorization] of values) {
    const headers = { ...baseHeaders(operation), authorization };
    const payload = operation.operationId === 'issueToken' ? 'grant_type=client_credentials' : bodyText();
    yield { where: `${operation.operationId} header authorization: ${label}`, operation, method: operation.method, url: urlOf(operation), headers, payload, anonymous: true };
  }
}
const firstTokenOperation = () => operations().find((o) => (document.paths[o.template][o.method.toLowerCase()] as unknown as { security?: unknown[] }).security?.length)!.operationId;

/** Every field of a valid body (JSON pointers into it), nested objects and array items included. */
function slots(value: unknown, schema: Schema, at: string[] = []): { path: string[]; schema: Schema }[] {
  const s = deref(schema);
  const here = at.length ? [{ path: at, schema: s }] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, i) => slots(item, s.items ?? {}, [...at, String(i)]))];
  if (value && typeof value === 'object') {
    const properties = s.properties ?? deref((s.oneOf ?? s.anyOf)?.[0]).properties ?? {};
    return [...here, ...Object.entries(value).flatMap(([key, inner]) => slots(inner, properties[key] ?? {}, [...at, key]))];
  }
  return here;
}

function withValue(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1]] = value;
  return copy;
}

const RAW_MARK = '\u0001raw\u0001';
const JSON_VALUES: [string, unknown][] = [
  ['null', null], ['true', true], ['false', false], ['0', 0], ['-1', -1], ['1.5', 1.5], ['1e308', 1e308], ['-0', -0], ['empty string', ''], ['string', 'x'],
  ['number as string', '1'], ['empty array', []], ['empty object', {}], ['nested array', [[['x']]]], ['object', { a: { b: 'c' } }], ['array of nulls', [null, null]],
  ['overlong string', 'x'.repeat(100_000)], ['long string', 'x'.repeat(5_000)], ['NUL', '\u0000'], ['NUL inside', 'abc\u0000def'], ['lone high surrogate', 'abc\ud800'], ['lone low surrogate', '\udc00def'],
  ['SQL injection', "' OR '1'='1'; DROP TABLE api_client;--"], ['path traversal', '../../../etc/passwd'], ['percent NUL', '%00'], ['unicode', 'Ærøskøbing 🏠 e\u0301'],
  ['1,000 items', Array.from({ length: 1000 }, () => 'x')],
];
const RAW_VALUES = ['{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"polluted": true}}}', 'NaN', 'Infinity', '-Infinity', '1e309', '-1e309', '1e-400', '0x10', '01', '.5', '+1', "'single'", 'undefined', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"\\x41"', '"\\u12"', '[1,]', '{"a":1,}'];

function bodyAttempts(operation: Operation): Generator<Attempt> {
  const form = isForm(operation);
  const valid = form ? { ...validBody(operation), client_id: client.clientId, client_secret: client.clientSecret } : validBody(operation);
  const headers = () => baseHeaders(operation);
  const base = { operation, method: operation.method, url: urlOf(operation) };
  return (function* () {
    if (form) {
      for (const field of Object.keys(deref(operation.body!.schema).properties ?? {})) {
        // Each token request that passes validation costs a deliberately slow scrypt: one value per class.
        for (const value of [...onePerClass(TEXTS), ...schemaTexts(deref(operation.body!.schema).properties[field])]) {
          const fields = Object.entries({ ...valid, [field]: undefined }).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
          yield { ...base, where: `${operation.operationId} form ${field}: ${value.label} ${JSON.stringify(decoded(value)).slice(0, 40)}`, headers: headers(), payload: [...fields, `${field}=${encode(value)}`].join('&') };
        }
        yield { ...base, where: `${operation.operationId} form ${field}: twice`, headers: headers(), payload: `${serialize(operation, valid)}&${field}=x` };
        yield { ...base, where: `${operation.operationId} form ${field}: raw 0xFF byte`, headers: headers(), payload: Buffer.concat([Buffer.from(`${serialize(operation, valid)}&${field}=a`), Buffer.from([0xff])]) };
      }
    } else {
      for (const slot of slots(valid, operation.body!.schema)) {
        const name = slot.path.join('/');
        const s = slot.schema;
        const bounds: [string, unknown][] = [];
        if (s.minLength) bounds.push(['below minLength', 'a'.repeat(s.minLength - 1)]);
        if (s.maxLength) bounds.push(['above maxLength', 'a'.repeat(s.maxLength + 1)]);
        if (s.minItems !== undefined) bounds.push(['below minItems', []]);
        if (s.maxItems !== undefined) bounds.push(['above maxItems', Array.from({ length: s.maxItems + 1 }, () => sample(s.items ?? {}))]);
        if (s.uniqueItems) bounds.push(['duplicate items', [sample(s.items ?? {}), sample(s.items ?? {})]]);
        for (const [label, value] of [...JSON_VALUES, ...bounds]) {
          yield { ...base, where: `${operation.operationId} body ${name}: ${label}`, headers: headers(), payload: JSON.stringify(withValue(valid, slot.path, value)) };
        }
        for (const raw of RAW_VALUES) {
          yield { ...base, where: `${operation.operationId} body ${name}: raw ${raw}`, headers: headers(), payload: JSON.stringify(withValue(valid, slot.path, RAW_MARK)).replace(JSON.stringify(RAW_MARK), raw) };
        }
      }
      yield { ...base, where: `${operation.operationId} body: unknown field`, headers: headers(), payload: JSON.stringify({ ...valid, zzz: 1 }) };
      yield { ...base, where: `${operation.operationId} body: duplicate key`, headers: headers(), payload: `${JSON.stringify(valid).slice(0, -1)},${JSON.stringify(valid).slice(1)}` };
      yield { ...base, where: `${operation.operationId} body: NUL key`, headers: headers(), payload: `${JSON.stringify(valid).slice(0, -1)},"a\\u0000":1}` };
      yield { ...base, where: `${operation.operationId} body: BOM`, headers: headers(), payload: `\ufeff${JSON.stringify(valid)}` };
      yield { ...base, where: `${operation.operationId} body: invalid UTF-8`, headers: headers(), payload: Buffer.concat([Buffer.from(JSON.stringify(valid).slice(0, -2)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(JSON.stringify(valid).slice(-2))]) };
      yield { ...base, where: `${operation.operationId} body: UTF-16`, headers: headers(), payload: Buffer.from(JSON.stringify(valid), 'utf16le') };
      for (const text of ['', ' ', 'null', '[]', '"x"', '1', 'true', '{', '}', '{"a":', 'Infinity', '\u0000', '{}'.repeat(3)]) {
        yield { ...base, where: `${operation.operationId} body: ${JSON.stringify(text)}`, headers: headers(), payload: text };
      }
    }
    const bodyText = serialize(operation, valid);
    // Depth and size, whatever the media type.
    yield { ...base, where: `${operation.operationId} body: 10,000 nested arrays`, headers: headers(), payload: `${'['.repeat(10_000)}${']'.repeat(10_000)}` };
    yield { ...base, where: `${operation.operationId} body: 10,000 nested objects`, headers: headers(), payload: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}` };
    yield { ...base, where: `${operation.operationId} body: form nesting`, headers: headers(), payload: `a${'[a]'.repeat(5_000)}=1` };
    for (const [label, size] of [['1 MB', 1024 * 1024], ['10 MB', 10 * 1024 * 1024]] as const) {
      yield { ...base, where: `${operation.operationId} body: ${label}`, headers: headers(), payload: form ? `${bodyText}&scope=${'x'.repeat(size)}` : `{"cadastreIds": ["${'x'.repeat(size)}"]}` };
    }
    // Media types.
    for (const contentType of [
      undefined, 'text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json', 'application/json; charset=latin1',
      'application/json; charset=utf-16', 'application/jsonx', 'application/vnd.api+json', '*/*', 'application/json, text/plain', 'APPLICATION/JSON', 'application/octet-stream', '',
    ]) {
      const h = headers();
      if (contentType === undefined) delete h['content-type'];
      else h['content-type'] = contentType;
      yield { ...base, where: `${operation.operationId} body as ${contentType ?? 'no media type'}`, headers: h, payload: bodyText };
    }
  })();
}

/** Methods the description does not list for a path. */
function* methodAttempts(): Generator<Attempt> {
  const byPath = new Map<string, Operation[]>();
  for (const operation of operations()) byPath.set(operation.template, [...(byPath.get(operation.template) ?? []), operation]);
  for (const [template, listed] of byPath) {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH', 'LOCK', 'MKCOL']) {
      if (listed.some((o) => o.method === method) || (method === 'HEAD' && listed.some((o) => o.method === 'GET'))) continue;
      yield { where: `${method} ${template}`, operation: listed[0], method, url: urlOf(listed[0]), headers: { authorization: `Bearer ${client.token}` } };
    }
  }
}

const TIMEOUT_MS = 15_000;
const withTimeout = <T>(promise: Promise<T>, where: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${where}: no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS).unref())]);

/** The problems with one answer: none when it is a 2xx/3xx, or a 4xx in the documented error format. */
function judge(where: string, operation: Operation, method: string, status: number, contentType: string | undefined, text: string, raw = false): string[] {
  if (status >= 500) return [`${where} → ${status} ${text.slice(0, 200)}`];
  if (status < 400 || method === 'HEAD') return [];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${where} → ${status} not JSON: ${text.slice(0, 100)}`];
  }
  // The token endpoint answers its own errors in RFC 6749's format; the HTTP parser, before any route, in Problem Details.
  const tokenEndpoint = operation.operationId === 'issueToken' && method === 'POST';
  if (tokenEndpoint && (status === 400 || status === 401) && !(raw && /^application\/problem\+json/.test(contentType ?? ''))) {
    const ok = /^application\/json/.test(contentType ?? '') && typeof body.error === 'string' && typeof body.error_description === 'string';
    return ok ? [] : [`${where} → ${status} not an RFC 6749 error: ${text.slice(0, 200)}`];
  }
  const problems: string[] = [];
  if (!/^application\/problem\+json/.test(contentType ?? '')) problems.push(`${where} → ${status} content-type ${contentType}`);
  for (const [field, type] of [['type', 'string'], ['title', 'string'], ['status', 'number'], ['detail', 'string']] as const) {
    if (typeof body[field] !== type || body[field] === '') problems.push(`${where} → ${status} Problem Details without ${field}: ${text.slice(0, 200)}`);
  }
  if (body.status !== status) problems.push(`${where} → ${status} but status ${body.status} in the body`);
  return problems;
}

/** Runs `work` over `items`, at most `size` at a time. */
async function pool<T>(items: Iterable<T>, size: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]();
  await Promise.all(
    Array.from({ length: size }, async () => {
      for (let next = iterator.next(); !next.done; next = iterator.next()) await work(next.value);
    }),
  );
}

describe('a sweep of hostile input over every operation of /openapi.yaml', () => {
  it('no 5xx, no timeout, every 4xx complete Problem Details (the token endpoint: RFC 6749)', async () => {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let refusedToken = 0;
    await pool(attempts(), 8, async (attempt) => {
      sent++;
      let response;
      try {
        response = await withTimeout(app.inject({ method: attempt.method as 'GET', url: attempt.url, headers: attempt.headers, payload: attempt.payload }), attempt.where);
      } catch (error) {
        // A header value HTTP cannot carry (light-my-request refuses it as Node's client would) is not sent.
        if ((error as { code?: string }).code === 'ERR_INVALID_CHAR') return;
        failures.push(`${attempt.where}: ${(error as Error).message}`);
        return;
      }
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (!attempt.anonymous && (response.statusCode === 401 || response.statusCode === 403)) refusedToken++;
      failures.push(...judge(attempt.where, attempt.operation, attempt.method, response.statusCode, response.headers['content-type'] as string | undefined, response.body));
    });
    expect(failures.slice(0, 50), `${failures.length} failures of ${sent} requests`).toEqual([]);
    // The sweep reaches every operation with thousands of requests, and past the auth layer.
    expect(sent).toBeGreaterThan(3000);
    expect(refusedToken).toBe(0);
    expect(statuses.get(200)).toBeGreaterThan(50);
  });

  it('what only a real socket carries: parser-level errors, unknown methods, bodies written before reading', async () => {
    const failures: string[] = [];
    const cases: { where: string; operation: Operation; bytes: Buffer; readAfter?: boolean }[] = [];
    const auth = `Authorization: Bearer ${client.token}\r\n`;
    for (const operation of operations()) {
      const url = urlOf(operation);
      const head = (extra: string) => `${operation.method} ${url} HTTP/1.1\r\nHost: a\r\n${auth}${extra}`;
      const add = (where: string, bytes: string | Buffer, readAfter = false) =>
        cases.push({ where: `${operation.operationId}: ${where}`, operation, bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, readAfter });
      for (const [label, header] of [['NUL', 'X-A: a\0b'], ['CR', 'X-A: a\rb'], ['LF in a name', 'X-\nA: b'], ['space before colon', 'X-A : b'], ['obsolete line folding', 'X-A: a\r\n b'], ['8-bit name', 'X-\xffA: b']]) {
        add(`${label} in a header`, `${head(`${header}\r\n`)}\r\n`);
      }
      add('raw 0xFF in the URL', `${operation.method} ${url.replace('/', '/\xff')} HTTP/1.1\r\nHost: a\r\n${auth}\r\n`);
      add('raw space in the URL', `${operation.method} ${url.replace('/', '/a b')} HTTP/1.1\r\nHost: a\r\n${auth}\r\n`);
      add('URL of 20,000 characters', `${operation.method} ${url}?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n${auth}\r\n`);
      add('headers over 16 KiB', `${head(`X-Big: ${'a'.repeat(20_000)}\r\n`)}\r\n`);
      add('HTTP/0.9-style request', `${operation.method} ${url}\r\n\r\n`);
      add('HTTP/2.0 request line', `${operation.method} ${url} HTTP/2.0\r\nHost: a\r\n\r\n`);
      add('Transfer-Encoding with Content-Length', `${head('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n')}\r\n0\r\n\r\n`);
      add('Transfer-Encoding not chunked', `${head('Transfer-Encoding: gzip\r\n')}\r\n{}`);
      add('bad chunk size', `${head('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n')}\r\nzz\r\n{}\r\n0\r\n\r\n`);
      for (const length of ['abc', '-1', '1.5', '99999999999999999999999', '2, 3']) add(`Content-Length ${length}`, `${head(`Content-Type: application/json\r\nContent-Length: ${length}\r\n`)}\r\n{}`);
      add('two Content-Lengths', `${head('Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n')}\r\n{}`);
      for (const method of ['BREW', 'G3T', 'get', 'GET\u00ff']) add(`method ${method}`, `${method} ${url} HTTP/1.1\r\nHost: a\r\n${auth}\r\n`);
      if (operation.body) {
        const big = Buffer.alloc(10 * 1024 * 1024, 'a');
        const type = `Content-Type: ${operation.body.mediaType}\r\nIdempotency-Key: ${randomUUID()}\r\n`;
        add('10 MB body written before reading', Buffer.concat([Buffer.from(head(`${type}Content-Length: ${big.length}\r\n\r\n`)), big]), true);
        add('10 MB chunked body written before reading', Buffer.concat([Buffer.from(head(`${type}Transfer-Encoding: chunked\r\n\r\n`)), Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]), true);
        add('body shorter than its Content-Length', `${head(`${type}Content-Length: 100\r\n`)}\r\n{}`);
      }
    }
    await pool(cases, 4, async (c) => {
      try {
        const response = await rawExchange(port, c.bytes, { readAfter: c.readAfter, timeoutMs: c.where.includes('shorter') ? 1_000 : TIMEOUT_MS });
        failures.push(...judge(c.where, c.operation, c.operation.method, response.status, response.headers['content-type'], response.body, true));
      } catch (error) {
        // A body shorter than announced: the server waits for the rest, as it must; nothing to judge.
        if (c.where.includes('shorter') && /no complete response/.test((error as Error).message)) return;
        failures.push(`${c.where}: ${(error as Error).message}`);
      }
    });
    expect(failures.slice(0, 50), `${failures.length} failures of ${cases.length} requests`).toEqual([]);
  });

  it('the ops console, which /openapi.yaml does not describe: no 5xx, markup never echoed unescaped, a hostile credential refused', async () => {
    // A run in the ledger, so hostile query values reach the run page's statements.
    await insertRun(api.db, { runId: 'sweep-run', kind: 'backfill', workflowId: 'sweep-run', sources: ['no-address'], forced: false });
    await insertSourceRun(api.db, { runId: 'sweep-run', sourceId: 'no-address', country: 'NO', input: 'sweep.csv' });
    const authorization = `Bearer ${OPS_SECRET}`;
    // The sweep reaches the pages: the run's own page answers with it.
    const plain = await app.inject({ method: 'GET', url: '/ops/runs/sweep-run', headers: { authorization } });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toContain('sweep-run');
    const failures: string[] = [];
    const cases: { where: string; url: string; authorization: string; expected?: number }[] = [];
    for (const value of TEXTS) {
      const text = encode(value);
      const label = `${value.label} ${JSON.stringify(decoded(value)).slice(0, 40)}`;
      for (const url of [`/ops/sources/${text}`, `/ops/runs/${text}`, `/ops/runs/sweep-run?source=${text}`, `/ops/runs/sweep-run?reason=${text}`, `/ops/runs/sweep-run?page=${text}`]) {
        cases.push({ where: `${url.replace(text, '…')}: ${label}`, url, authorization });
      }
      if ('text' in value && !/[\r\n]/.test(value.text)) {
        for (const credential of [`Bearer ${value.text}`, `Basic ${Buffer.from(`operator:${value.text}`).toString('base64')}`, value.text]) {
          cases.push({ where: `/ops authorization ${credential.split(' ')[0]}: ${label}`, url: '/ops', authorization: credential, expected: 401 });
        }
      }
    }
    await pool(cases, 4, async (c) => {
      const response = await app.inject({ method: 'GET', url: c.url, headers: { authorization: c.authorization } });
      if (response.statusCode >= 500) failures.push(`${c.where}: ${response.statusCode}`);
      if (c.expected && response.statusCode !== c.expected) failures.push(`${c.where}: ${response.statusCode}, expected ${c.expected}`);
      if (/<script>alert\(1\)<\/script>/.test(response.body)) failures.push(`${c.where}: the markup came back unescaped`);
    });
    expect(failures.slice(0, 50), `${failures.length} failures of ${cases.length} requests`).toEqual([]);
  });

  it('the process still answers /health afterwards', async () => {
    const injected = await app.inject({ method: 'GET', url: '/health' });
    expect(injected.statusCode).toBe(200);
    const response = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ status: 'UP' });
  });
});
