import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILDING_STATUS_NAMES, buildingStatusOf } from '../../sources/no/building/codes.js';
import { call, clientWithToken, type ApiResponse, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses, type OpenApiDocument } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * The smaller deviations an integrator's checker found (issue 22, item 6), each as a user of
 * the API would check it: the api-catalog Link header, the message for an Idempotency-Key that
 * is not a UUID, one rule for unknown query parameters, coordinates rounded as properties are,
 * registration days written as days, and the building statuses and transaction kinds the data
 * holds listed as enums in /openapi.yaml.
 */
let api: ApiTest;
let client: TestClient;
let document: OpenApiDocument;

const A = '0301-9001-1-0-0';

beforeAll(async () => {
  api = await startApiTest();
  client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'] });
  document = (await fetchOpenApi(api.baseUrl)).document;
  await api.db.query(`
    -- An address whose location has more decimals than the API writes.
    INSERT INTO address (country, address_id, cadastre_id, municipality_code, municipality_name, street_name, house_number, house_letter, address_text, postal_code, postal_place, geom, source_srid, row_hash, published_run_id)
    VALUES ('NO', 'fx-a9', '${A}', '0301', 'OSLO', 'Fjordgata', 14, NULL, 'Fjordgata 14', '0150', 'OSLO', ST_SetSRID(ST_MakePoint(3.000123456789, 58.000987654321), 4326), 25832, gen_random_uuid(), 'fixture');
    -- Registered on a day, as the grunnbok and Lantmäteriet give it: stored as that day's local midnight.
    INSERT INTO owner (country, owner_key, cadastre_id, kind, org_scheme, org_id, org_name, org_country, share_numerator, share_denominator, registered_at, row_hash, published_run_id)
    VALUES ('NO', 'fx-o-day', '${A}', 'ORGANIZATION', '0192', '977666555', 'Dagsdato AS', 'NO', 1, 1, timestamp '2009-01-04 00:00' AT TIME ZONE 'Europe/Oslo', gen_random_uuid(), 'fixture');
    INSERT INTO property_transaction (country, transaction_id, cadastre_id, registered_at, kind, source, row_hash, published_run_id)
    VALUES ('NO', 'fx-t-day', '${A}', timestamp '2009-07-04 00:00' AT TIME ZONE 'Europe/Oslo', 'INHERITANCE', 'MAPPING_AUTHORITY_TINGLYSING', gen_random_uuid(), 'fixture');
    INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, org_scheme, org_id, org_name, org_country)
    VALUES ('NO', 'fx-t-day', 'BUYER', 1, 'ORGANIZATION', '0192', '977666555', 'Dagsdato AS', 'NO');
  `);
});
afterAll(async () => {
  await api?.stop();
});

function expectProblem(response: ApiResponse, status: number): Record<string, any> {
  expect(response.status, response.text.slice(0, 300)).toBe(status);
  expect(response.contentType).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String), code: expect.any(String) });
  return response.body;
}

describe('the API catalog (RFC 9727)', () => {
  it('GET and HEAD carry Link: <…/.well-known/api-catalog>; rel="api-catalog"', async () => {
    const expected = `<${api.baseUrl}/.well-known/api-catalog>; rel="api-catalog"`;
    const got = await call(api.baseUrl, 'GET', '/.well-known/api-catalog');
    expect(got.status).toBe(200);
    expect(got.headers.get('link')).toBe(expected);
    const head = await fetch(`${api.baseUrl}/.well-known/api-catalog`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('link')).toBe(expected);
    expect(head.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
  });
});

describe('Idempotency-Key', () => {
  it('present but not a UUID: 400 saying it must be a UUID, not that it is required', async () => {
    const lookup = await call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: client.token, body: { cadastreIds: [A] }, headers: { 'idempotency-key': 'not-a-uuid' } });
    const problem = expectProblem(lookup, 400);
    expect(problem.code).toBe('VALIDATION_FAILED');
    expect(problem.detail).toMatch(/must be a UUID/);
    expect(problem.detail).not.toMatch(/required/);
    expect(problem.errors).toEqual([{ location: 'headers/idempotency-key', message: expect.stringMatching(/must be a UUID/) }]);

    const subscription = await call(api.baseUrl, 'POST', '/subscriptions', {
      token: client.token,
      headers: { 'idempotency-key': '12345' },
      body: { target: { kind: 'PROPERTY', country: 'NO', cadastreId: A }, events: ['OWNER_CHANGED'], webhookUrl: 'https://hooks.example.org/x', secret: 'a-signing-secret-of-some-length' },
    });
    expect(expectProblem(subscription, 400).detail).toMatch(/must be a UUID/);
  });

  it('absent: 400 IDEMPOTENCY_KEY_MISSING saying it is required', async () => {
    const missing = await call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: client.token, body: { cadastreIds: [A] } });
    const problem = expectProblem(missing, 400);
    expect(problem.code).toBe('IDEMPOTENCY_KEY_MISSING');
    expect(problem.detail).toMatch(/required/);
  });
});

/** A request of each operation that would succeed, but for the query parameter added. */
function validRequest(template: string, method: string): { path: string; query: string[]; body?: unknown; headers: Record<string, string> } {
  const values: Record<string, string> = {
    country: 'NO', cadastreId: A, address: 'Fjordgata', lat: '58.0005', lon: '3.0005', scheme: '0192', id: '999888777', areaId: '0301',
    subscriptionId: randomUUID(), municipalityCode: '0301', planId: 'plan', documentId: 'doc',
  };
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'));
  const headers: Record<string, string> = { authorization: `Bearer ${client.token}` };
  if (method === 'POST') headers['idempotency-key'] = randomUUID();
  const query = template.startsWith('/zoning-plan-documents/') ? ['exp=1', 'sig=x'] : [];
  const body = template === '/properties/{country}/lookups' ? { cadastreIds: [A] }
    : template === '/subscriptions' && method === 'POST'
      ? { target: { kind: 'PROPERTY', country: 'NO', cadastreId: A }, events: ['OWNER_CHANGED'], webhookUrl: 'https://hooks.example.org/x', secret: 'a-signing-secret-of-some-length' }
      : undefined;
  return { path, query, body, headers };
}

describe('unknown query parameters', () => {
  it('are refused on every operation of /openapi.yaml with 400 Problem Details naming the parameter (the token endpoint ignores them, RFC 6749 3.2)', async () => {
    const checked: string[] = [];
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [lower, operation] of Object.entries(methods)) {
        const method = lower.toUpperCase();
        if (operation.operationId === 'issueToken') continue;
        const request = validRequest(template, method);
        const url = `${request.path}?${[...request.query, 'colour=blue'].join('&')}`;
        const response = await call(api.baseUrl, method, url, { headers: request.headers, body: request.body });
        expect.soft(response.status, `${operation.operationId} ${url}: ${response.text.slice(0, 200)}`).toBe(400);
        if (response.status === 400) {
          expect.soft(response.contentType, operation.operationId).toMatch(/^application\/problem\+json/);
          expect.soft(response.body.code, operation.operationId).toBe('VALIDATION_FAILED');
          expect.soft(response.body.errors, operation.operationId).toEqual([{ location: 'querystring/colour', message: 'is not a query parameter of this operation' }]);
        }
        checked.push(operation.operationId);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['getApiCatalog', 'getHealth', 'getProperty', 'listPropertyTransactions', 'resolveCoordinate', 'lookupProperties', 'createSubscription', 'downloadZoningPlanDocument']));
  });

  it('the parameters an operation declares still work', async () => {
    const page = await call(api.baseUrl, 'GET', `/properties/NO/${A}/transactions?pageSize=1`, { token: client.token });
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
  });

  it('the token endpoint ignores a query parameter it does not know, as RFC 6749 section 3.2 requires', async () => {
    const response = await call(api.baseUrl, 'POST', '/auth/token?colour=blue', {
      rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(200);
  });
});

const decimals = (value: number) => (String(value).split('.')[1] ?? '').length;

describe('coordinate responses', () => {
  it('round every location to 7 decimals, as property responses do', async () => {
    const coordinate = await call(api.baseUrl, 'GET', '/coordinates/NO/58.0005/3.0005', { token: client.token });
    expect(coordinate.status).toBe(200);
    const locations = [coordinate.body.property.location, ...coordinate.body.addresses.map((a: { location: unknown }) => a.location)];
    for (const location of locations) {
      expect(decimals(location.lat), JSON.stringify(location)).toBeLessThanOrEqual(7);
      expect(decimals(location.lon), JSON.stringify(location)).toBeLessThanOrEqual(7);
    }
    // The same address as the property response writes it.
    const property = await call(api.baseUrl, 'GET', `/properties/NO/${A}`, { token: client.token });
    const inProperty = property.body.addresses.find((a: { text: string }) => a.text === 'Fjordgata 14');
    const inCoordinate = coordinate.body.addresses.find((a: { text: string }) => a.text === 'Fjordgata 14');
    expect(inProperty.location).toEqual({ lat: 58.0009877, lon: 3.0001235 });
    expect(inCoordinate.location).toEqual(inProperty.location);
    expect(coordinate.body.property.addresses.find((a: { text: string }) => a.text === 'Fjordgata 14').location).toEqual(inProperty.location);
  });
});

describe('registeredAt', () => {
  it('a registration day is written as that day, not as its local midnight in UTC', async () => {
    const owners = await call(api.baseUrl, 'GET', `/properties/NO/${A}/owners`, { token: client.token });
    const dayOwner = owners.body.items.find((o: { organization?: { name: string } }) => o.organization?.name === 'Dagsdato AS');
    expect(dayOwner.registeredAt).toBe('2009-01-04');
    const transactions = await call(api.baseUrl, 'GET', `/properties/NO/${A}/transactions`, { token: client.token });
    const day = transactions.body.items.find((t: { id: string }) => t.id === 'fx-t-day');
    // Summer time: local midnight is 22:00 UTC the day before, and still the 4th of July.
    expect(day.registeredAt).toBe('2009-07-04');
    const company = await call(api.baseUrl, 'GET', '/companies/0192/977666555/properties', { token: client.token });
    expect(company.body.items.map((p: { registeredAt: string }) => p.registeredAt)).toEqual(['2009-01-04']);
  });

  it('a registration with a time of day stays an RFC 3339 UTC timestamp', async () => {
    const transactions = await call(api.baseUrl, 'GET', `/properties/NO/${A}/transactions`, { token: client.token });
    expect(transactions.body.items.find((t: { id: string }) => t.id === 'fx-t5').registeredAt).toBe('2018-02-01T09:00:00Z');
  });

  it('/openapi.yaml describes registeredAt as a date or a timestamp', () => {
    const schemas = (document as unknown as { components: { schemas: Record<string, any> } }).components.schemas;
    for (const name of ['Owner', 'Transaction', 'ComparableTransaction', 'CompanyProperty']) {
      expect(schemas[name].properties.registeredAt.anyOf, name).toEqual([{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }]);
    }
  });
});

describe('enums in /openapi.yaml', () => {
  const schemas = () => (document as unknown as { components: { schemas: Record<string, any> } }).components.schemas;

  it('building status lists every status the Norwegian building register maps to, in the building and its history', () => {
    const mapped = [...new Set([...BUILDING_STATUS_NAMES.keys()].map((code) => buildingStatusOf(code)!))];
    expect(mapped).toEqual(expect.arrayContaining(['IN_USE', 'UNDER_CONSTRUCTION', 'NOTIFIED_MEASURE_REGISTERED', 'NOTIFIED_MEASURE_COMPLETED']));
    const building = schemas().Building.properties;
    expect([...building.status.enum].sort()).toEqual([...mapped].sort());
    expect([...building.statusHistory.items.properties.status.enum].sort()).toEqual([...mapped].sort());
  });

  it('transaction kind lists the kinds of both registers', () => {
    for (const name of ['Transaction', 'ComparableTransaction']) {
      expect([...schemas()[name].properties.kind.enum].sort(), name).toEqual(
        ['EXCHANGE', 'EXPROPRIATION', 'FORCED_SALE', 'GIFT', 'INHERITANCE', 'OTHER', 'SALE', 'SETTLEMENT'],
      );
    }
  });
});

describe('every response of this file', () => {
  it('matches the served OpenAPI document', async () => {
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
