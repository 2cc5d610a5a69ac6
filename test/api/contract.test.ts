import { randomUUID } from 'node:crypto';
import { OpenAPIClientAxios, type OpenAPIClient } from 'openapi-client-axios';
import type { AxiosResponse } from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithToken, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses, type OpenApiDocument } from './support/openapi-check.js';
import { loggedResponses, recordResponse } from './support/response-log.js';

/**
 * Contract tests through a client generated at run time from the served /openapi.yaml
 * (openapi-client-axios: one method per operationId): every operation, every status the spec
 * lists for it, each response validated against the document by an independent validator.
 */
let api: ApiTest;
let document: OpenApiDocument;
// Operations are looked up by operationId at run time: the client is untyped on purpose.
let client: OpenAPIClient<any>;
let full: TestClient;
let noScopes: TestClient;

const property = { country: 'NO', cadastreId: '0301-9001-1-0-0' };
const unknownProperty = { country: 'NO', cadastreId: '0301-1-1-0-0' };

beforeAll(async () => {
  api = await startApiTest();
  document = (await fetchOpenApi(api.baseUrl)).document;
  client = await new OpenAPIClientAxios({ definition: document as never, axiosConfigDefaults: { validateStatus: () => true } }).init();
  client.interceptors.response.use((response: AxiosResponse) => {
    recordResponse({
      method: (response.config.method ?? 'get').toUpperCase(),
      path: String(response.request.path).split('?')[0],
      status: response.status,
      contentType: String(response.headers['content-type'] ?? ''),
      body: response.data,
    });
    return response;
  });
  full = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'] });
  noScopes = await clientWithToken(api.db, api.baseUrl, { scopes: ['owners.read'] });
});
afterAll(async () => {
  await api?.stop();
});

const auth = (c?: TestClient) => ({ headers: c ? { authorization: `Bearer ${c.token}` } : {} });
type Call = (c?: TestClient) => Promise<AxiosResponse>;

const propertyOperations = [
  'getProperty', 'listPropertySections', 'listPropertyBuildings', 'listPropertyUnits', 'listPropertyOwners', 'listPropertyTenants',
  'listPropertyTransactions', 'listComparableTransactions', 'getValuation', 'listEnergyCertificates', 'listCertifications',
  'listZoningPlans', 'getUtilization', 'listBuildingPermits',
];

describe('the generated client', () => {
  it('has one method per operation of the document', () => {
    const operationIds = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(operationIds).toHaveLength(new Set(operationIds).size);
    for (const id of operationIds) expect(typeof (client as unknown as Record<string, unknown>)[id], id).toBe('function');
    expect(operationIds).toEqual(expect.arrayContaining(propertyOperations));
  });
});

describe('platform operations', () => {
  it('200 without a token', async () => {
    expect((await client.getApiCatalog()).status).toBe(200);
    const description = await client.getOpenApiDescription();
    expect(description.status).toBe(200);
    expect(String(description.data)).toMatch(/^openapi: 3\.1\.0/);
    expect((await client.getDocumentation()).status).toBe(200);
    expect((await client.getHealth()).data).toEqual({ status: 'UP', version: '0.3.0' });
  });

  it('issueToken: 200, and 400 with an RFC 6749 body', async () => {
    const form = (fields: Record<string, string>) => [null, new URLSearchParams(fields).toString(), { headers: { 'content-type': 'application/x-www-form-urlencoded' } }] as const;
    const ok = await client.issueToken(...form({ grant_type: 'client_credentials', client_id: full.clientId, client_secret: full.clientSecret }));
    expect(ok.status).toBe(200);
    expect(ok.data.scope.split(' ').sort()).toEqual(['areas.read', 'companies.read', 'owners.read', 'properties.read', 'subscriptions.write']);
    const bad = await client.issueToken(...form({ grant_type: 'client_credentials', client_id: full.clientId, client_secret: 'x' }));
    expect(bad.status).toBe(400);
    expect(bad.data.error).toBe('invalid_client');
  });

  it('getIdentity: 200 and 401', async () => {
    expect((await client.getIdentity(null, null, auth(full))).data.clientId).toBe(full.clientId);
    expect((await client.getIdentity(null, null, auth())).status).toBe(401);
  });
});

describe('property operations', () => {
  for (const operationId of propertyOperations) {
    it(`${operationId}: 200, 400, 401, 403, 404`, async () => {
      const operation = (client as unknown as Record<string, (p: unknown, d: unknown, c: unknown) => Promise<AxiosResponse>>)[operationId];
      const ok = await operation(property, null, auth(full));
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toMatch(/^\d+$/);
      expect((await operation({ country: 'NO', cadastreId: '0301-x-1-0-0' }, null, auth(full))).status).toBe(400);
      expect((await operation(property, null, auth())).status).toBe(401);
      expect((await operation(property, null, auth(noScopes))).status).toBe(403);
      const missing = await operation(unknownProperty, null, auth(full));
      expect(missing.status).toBe(404);
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    });
  }

  it('lookupProperties: 200, 400, 401, 403, 404, 409', async () => {
    const key = randomUUID();
    const ok = await client.lookupProperties({ country: 'NO', 'idempotency-key': key }, { cadastreIds: ['0301-9001-1-0-0', '0301-1-1-0-0'] }, auth(full));
    expect(ok.status).toBe(200);
    expect(ok.data.notFound).toEqual(['0301-1-1-0-0']);
    expect((await client.lookupProperties({ country: 'NO', 'idempotency-key': key }, { cadastreIds: ['0301-9001-2-0-0'] }, auth(full))).status).toBe(409);
    expect((await client.lookupProperties({ country: 'NO', 'idempotency-key': randomUUID() }, { cadastreIds: 'x' }, auth(full))).status).toBe(400);
    expect((await client.lookupProperties({ country: 'NO', 'idempotency-key': randomUUID() }, { cadastreIds: ['x'] }, auth())).status).toBe(401);
    expect((await client.lookupProperties({ country: 'NO', 'idempotency-key': randomUUID() }, { cadastreIds: ['x'] }, auth(noScopes))).status).toBe(403);
    expect((await client.lookupProperties({ country: 'FI', 'idempotency-key': randomUUID() }, { cadastreIds: ['x'] }, auth(full))).status).toBe(404);
  });

  it('downloadZoningPlanDocument: 302 with a signed URL, 404 with a forged one, 400 without a signature', async () => {
    const plans = await client.listZoningPlans(property, null, auth(full));
    const url = new URL(plans.data.items[0].documents[0].downloadUrl);
    const [, , country, municipalityCode, planId, documentId] = url.pathname.split('/');
    const params = { country, municipalityCode, planId: decodeURIComponent(planId), documentId: decodeURIComponent(documentId), exp: Number(url.searchParams.get('exp')), sig: url.searchParams.get('sig') };
    const config = { maxRedirects: 0 };
    expect((await client.downloadZoningPlanDocument(params, null, config)).status).toBe(302);
    expect((await client.downloadZoningPlanDocument({ ...params, sig: 'AAAAAAAAAAAAAAAAAAAAAA' }, null, config)).status).toBe(404);
    expect((await client.downloadZoningPlanDocument({ ...params, sig: undefined }, null, config)).status).toBe(400);
  });
});

describe('addresses, coordinates, companies, areas', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown> | undefined][] = [
    ['searchAddresses', { country: 'NO', address: 'Fjordgata 12' }, { country: 'NO', address: 'ab' }, { country: 'FI', address: 'Fjordgata 12' }],
    ['resolveCoordinate', { country: 'NO', lat: 58.0005, lon: 3.0005 }, { country: 'NO', lat: 91, lon: 3 }, { country: 'FI', lat: 60, lon: 25 }],
    ['listCompanyProperties', { scheme: '0192', id: '999888777' }, { scheme: '0192', id: '999888777', pageSize: 0 }, { scheme: '0192', id: '100000000' }],
    ['listLandAllocations', { country: 'NO', areaId: '0301' }, { country: 'NO', areaId: '0301', pageToken: 'forged' }, { country: 'NO', areaId: '9999' }],
  ];
  for (const [operationId, good, bad, missing] of cases) {
    it(`${operationId}: 200, 400, 401, 403, 404`, async () => {
      const operation = (client as unknown as Record<string, (p: unknown, d: unknown, c: unknown) => Promise<AxiosResponse>>)[operationId];
      expect((await operation(good, null, auth(full))).status).toBe(200);
      expect((await operation(bad, null, auth(full))).status).toBe(400);
      expect((await operation(good, null, auth())).status).toBe(401);
      expect((await operation(good, null, auth(noScopes))).status).toBe(403);
      if (missing) expect((await operation(missing, null, auth(full))).status).toBe(404);
    });
  }
});

describe('subscription operations', () => {
  it('createSubscription 201/400/401/403/404/409, listSubscriptions 200/401/403, deleteSubscription 204/400/401/403/404', async () => {
    const key = randomUUID();
    const body = { target: { kind: 'PROPERTY', ...property }, events: ['OWNER_CHANGED'], webhookUrl: 'https://hooks.example.org/contract', secret: 'whsec_0123456789abcdef0123456789ab' };
    const created = await client.createSubscription({ 'idempotency-key': key }, body, auth(full));
    expect(created.status).toBe(201);
    expect((await client.createSubscription({ 'idempotency-key': key }, { ...body, events: ['TENANT_CHANGED'] }, auth(full))).status).toBe(409);
    expect((await client.createSubscription({ 'idempotency-key': randomUUID() }, { ...body, webhookUrl: 'ftp://x' }, auth(full))).status).toBe(400);
    expect((await client.createSubscription({ 'idempotency-key': randomUUID() }, { ...body, target: { kind: 'PROPERTY', ...unknownProperty } }, auth(full))).status).toBe(404);
    expect((await client.createSubscription({ 'idempotency-key': randomUUID() }, body, auth())).status).toBe(401);
    expect((await client.createSubscription({ 'idempotency-key': randomUUID() }, body, auth(noScopes))).status).toBe(403);
    expect((await client.listSubscriptions(null, null, auth(full))).data.items).toHaveLength(1);
    expect((await client.listSubscriptions(null, null, auth())).status).toBe(401);
    expect((await client.listSubscriptions(null, null, auth(noScopes))).status).toBe(403);
    expect((await client.deleteSubscription({ subscriptionId: 'nope' }, null, auth(full))).status).toBe(400);
    expect((await client.deleteSubscription({ subscriptionId: created.data.id }, null, auth())).status).toBe(401);
    expect((await client.deleteSubscription({ subscriptionId: created.data.id }, null, auth(noScopes))).status).toBe(403);
    expect((await client.deleteSubscription({ subscriptionId: created.data.id }, null, auth(full))).status).toBe(204);
    expect((await client.deleteSubscription({ subscriptionId: created.data.id }, null, auth(full))).status).toBe(404);
  });
});

describe('429 and 500', () => {
  it('429 with Retry-After when the burst limit is passed', async () => {
    const tight = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 1 });
    const responses = await Promise.all(Array.from({ length: 4 }, () => client.getProperty(property, null, auth(tight))));
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('500 as Problem Details when the store fails, without leaking the cause', async () => {
    await api.db.query('ALTER TABLE tenant RENAME TO tenant_moved_away');
    try {
      const failed = await client.listPropertyTenants(property, null, auth(full));
      expect(failed.status).toBe(500);
      expect(failed.data).toMatchObject({ type: `${api.baseUrl}/problems/internal`, status: 500, code: 'INTERNAL_ERROR', traceId: expect.any(String) });
      expect(failed.data.detail).not.toMatch(/tenant|relation|sql/i);
    } finally {
      await api.db.query('ALTER TABLE tenant_moved_away RENAME TO tenant');
    }
  });

  it('every response the generated client received matches the served OpenAPI document', async () => {
    expect(loggedResponses().length).toBeGreaterThan(80);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
