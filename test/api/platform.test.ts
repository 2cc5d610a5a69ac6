import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, get } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

let api: ApiTest;
beforeAll(async () => {
  api = await startApiTest();
});
afterAll(async () => {
  await api?.stop();
});

describe('platform endpoints', () => {
  it('serves the API catalog as an RFC 9727 linkset without a token', async () => {
    const response = await get(api.baseUrl, '/.well-known/api-catalog');
    expect(response.status).toBe(200);
    expect(response.contentType).toMatch(/^application\/linkset\+json/);
    const [entry] = response.body.linkset;
    expect(entry.anchor).toBe(`${api.baseUrl}/`);
    expect(entry['service-desc'][0]).toMatchObject({ href: `${api.baseUrl}/openapi.yaml`, type: 'application/yaml' });
    expect(entry['service-desc'][0].scopes).toEqual(['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write']);
    expect(entry['service-doc'][0].href).toBe(`${api.baseUrl}/docs`);
    expect(entry.status[0].href).toBe(`${api.baseUrl}/health`);
    expect(entry['version-history'][0].href).toMatch(/\/docs#changelog$/);
    // Every link of the catalog answers.
    for (const href of [entry['service-desc'][0].href, entry['service-doc'][0].href, entry.status[0].href]) {
      expect((await get(api.baseUrl, new URL(href).pathname)).status).toBe(200);
    }
    expect(response.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
  });

  // Redocly and Spectral lint it too: openapi-lint.test.ts.
  it('describes itself in OpenAPI 3.1, version 0.3.0, a document valid against the OpenAPI 3.1 schema', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(document.openapi).toBe('3.1.0');
    expect((document.info as { version: string }).version).toBe('0.3.0');
    const metaValidation = await validate('https://spec.openapis.org/oas/3.1/schema-base', document as never);
    expect(metaValidation.valid).toBe(true);
  });

  it('documents exactly the routes that run, each operation of the spec included', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    const documented = Object.entries(document.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    const spec = [
      'GET /.well-known/api-catalog', 'GET /openapi.yaml', 'POST /auth/token', 'GET /auth/me',
      'GET /addresses/{country}/{address}', 'GET /coordinates/{country}/{lat}/{lon}',
      'GET /properties/{country}/{cadastreId}', 'GET /properties/{country}/{cadastreId}/sections', 'GET /properties/{country}/{cadastreId}/buildings',
      'GET /properties/{country}/{cadastreId}/units', 'GET /properties/{country}/{cadastreId}/owners', 'GET /properties/{country}/{cadastreId}/tenants',
      'GET /properties/{country}/{cadastreId}/transactions', 'GET /properties/{country}/{cadastreId}/comparable-transactions',
      'GET /properties/{country}/{cadastreId}/valuations', 'GET /properties/{country}/{cadastreId}/energy-certificates',
      'GET /properties/{country}/{cadastreId}/certifications', 'GET /properties/{country}/{cadastreId}/zoning-plans',
      'GET /properties/{country}/{cadastreId}/utilization', 'GET /properties/{country}/{cadastreId}/building-permits',
      'POST /properties/{country}/lookups', 'POST /subscriptions', 'GET /subscriptions', 'DELETE /subscriptions/{subscriptionId}',
      'GET /companies/{scheme}/{id}/properties', 'GET /areas/{country}/{areaId}/land-allocations',
    ];
    for (const operation of spec) expect(documented).toContain(operation);
    // And every documented operation is a route the app really has.
    for (const operation of documented) {
      const [method, template] = operation.split(' ');
      expect(routeExists(method, template), operation).toBe(true);
    }
  });

  it('reports UP on /health and serves the documentation as Markdown', async () => {
    expect((await get(api.baseUrl, '/health')).body).toEqual({ status: 'UP', version: '0.3.0' });
    const docs = await get(api.baseUrl, '/docs');
    expect(docs.contentType).toMatch(/^text\/markdown/);
    expect(docs.text).toMatch(/changelog/i);
  });

  it('answers an unknown path with Problem Details 404 carrying RateLimit headers', async () => {
    const response = await call(api.baseUrl, 'GET', '/no/such/path');
    expect(response.status).toBe(404);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: `${api.baseUrl}/problems/not-found`, status: 404, code: 'NOT_FOUND', instance: '/no/such/path', traceId: expect.any(String) });
    expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});

function routeExists(method: string, template: string): boolean {
  const url = template.replace(/\{([^}]+)\}/g, ':$1');
  return api.server.app.hasRoute({ method: method as 'GET', url });
}
