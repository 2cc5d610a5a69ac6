import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../api/auth/clients.js';
import { call, clientWithToken, type ApiResponse, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses, type OpenApiDocument } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * The sandbox rule, for every row the API returns or accepts: a sandbox client runs every
 * operation of the served description, and no identifier of anything outside the demo
 * properties may appear in any body it receives, whatever property the row comes from (a
 * comparable sale of another property, a unit's address or building on another property, a
 * company that holds only other properties).
 *
 * Demo: property A (0301-9001-1-0-0, with every register) and its sections. Not demo: property B
 * (0301-9001-2-0-0) and the Swedish property. Besides the API fixtures, rows that tie A to B:
 * A's comparables include a sale of B; a unit of A has its address and building on B; a
 * certificate, a certification and a permit of A name B's building; company 922333444 holds
 * title to B only, is B's tenant and the buyer in B's sale.
 */

let api: ApiTest;
let sandbox: TestClient;
let forbidden: { kind: string; value: string }[];

const A = '0301-9001-1-0-0';
const A_SECTION = '0301-9001-1-0-1';
const B = '0301-9001-2-0-0';
const SE = '0180_KUNGSHOLMEN_1_2';
const HOLDS_ONLY_B = '922333444';
// A global unicast address written in the URL: accepted as a webhook target without DNS; nothing is delivered in this test.
const WEBHOOK_URL = 'https://93.184.215.14/nordprop-sandbox-test';

beforeAll(async () => {
  api = await startApiTest();
  await api.db.query(`
    INSERT INTO api_demo_property (country, cadastre_id) VALUES ('NO', '${A}');
    INSERT INTO building (country, building_id, building_number, cadastre_id, municipality_code, building_type_code, building_type_name, status, is_main_building, geom, location, footprint_m2, source_srid, row_hash, published_run_id) VALUES
      ('NO', '300100009', '300100009', '${B}', '0301', '111', 'Enebolig', 'IN_USE', true,
       ST_SetSRID(ST_MakePoint(3.0031, 58.0004), 4326), ST_SetSRID(ST_MakePoint(3.0031, 58.0004), 4326), 120, 25832, gen_random_uuid(), 'fixture');
    INSERT INTO unit (country, unit_id, unit_number, building_number, cadastre_id, floor, usable_area_m2, use_type, address_id, row_hash, published_run_id) VALUES
      ('NO', 'fx-u9', 'U0101', '300100009', '${A_SECTION}', 1, 50, 'BOLIG', 'fx-a3', gen_random_uuid(), 'fixture');
    INSERT INTO energy_certificate (country, certificate_id, cadastre_id, building_number, municipality_code, label, heating_grade, issued_date, valid_to_date, source, row_hash, published_run_id) VALUES
      ('NO', 'fx-e9', '${A}', '300100009', '0301', 'D', 'ORANGE', '2020-01-01', '2030-01-01', 'ENERGY_AGENCY', gen_random_uuid(), 'fixture');
    INSERT INTO certification (country, certification_id, cadastre_id, building_number, municipality_code, scheme, rating, certified_date, certified_area_m2, row_hash, published_run_id) VALUES
      ('NO', 'fx-c9', '${A}', '300100009', '0301', 'BREEAM-NOR', 'GOOD', '2022-01-01', 100, gen_random_uuid(), 'fixture');
    INSERT INTO building_permit (country, case_id, cadastre_id, municipality_code, case_number, building_number, kind, status, description, applied_date, decided_date, row_hash, published_run_id) VALUES
      ('NO', 'fx-b9', '${A}', '0301', '2022/9', '300100009', 'ALTERATION', 'APPROVED', 'Tilbygg', '2022-01-01', '2022-03-01', gen_random_uuid(), 'fixture');
    INSERT INTO company (country, org_scheme, org_id, name, legal_form, row_hash, published_run_id) VALUES
      ('NO', '0192', '${HOLDS_ONLY_B}', 'Nabotomt Holding AS', 'AS', gen_random_uuid(), 'fixture');
    INSERT INTO owner (country, owner_key, cadastre_id, kind, org_scheme, org_id, org_name, org_country, share_numerator, share_denominator, registered_at, row_hash, published_run_id) VALUES
      ('NO', 'fx-o9', '${B}', 'ORGANIZATION', '0192', '${HOLDS_ONLY_B}', 'Nabotomt Holding AS', 'NO', 1, 4, '2020-01-01T09:00:00Z', gen_random_uuid(), 'fixture');
    INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, org_scheme, org_id, org_name, org_country, share_numerator, share_denominator) VALUES
      ('NO', 'fx-t9', 'BUYER', 2, 'ORGANIZATION', '0192', '${HOLDS_ONLY_B}', 'Nabotomt Holding AS', 'NO', 1, 2);
    INSERT INTO tenant (country, cadastre_id, org_scheme, org_id, name, org_country, verification_source, confidence, last_seen_at) VALUES
      ('NO', '${B}', '0192', '${HOLDS_ONLY_B}', 'Nabotomt Holding AS', 'NO', 'ENHETSREGISTERET', 'HIGH', '2026-11-20T02:00:00Z');
    -- A's comparables: a sale of B (not demo) and one of A itself (demo: it stays).
    UPDATE property_comparables SET transaction_ids = '{fx-t9,fx-t3}', distances_m = '{117.4,0}', prices_per_m2 = '{53435.11,47709.92}', similarities = '{0.87,0.5}'
    WHERE country = 'NO' AND cadastre_id = '${A}';
  `);
  // Created after the demo property is flagged (a first sandbox client flags some when none are).
  sandbox = await clientWithToken(api.db, api.baseUrl, {
    scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'],
    sandbox: true,
    tier: 'sandbox',
    burstLimit: 1000,
  });
  forbidden = await nonDemoIdentifiers();
});
afterAll(async () => {
  await api?.stop();
});

/**
 * Every identifier of what lies outside the demo properties, read from the store: cadastre ids
 * (properties and sections), address ids, building numbers, transaction ids, the org numbers of
 * companies that hold title only to other properties and appear on no demo property's row, and
 * the names of people who appear only on other properties' rows.
 */
async function nonDemoIdentifiers(): Promise<{ kind: string; value: string }[]> {
  const result = await api.db.query(`
    CREATE TEMP VIEW demo_or_section AS
      SELECT d.country, d.cadastre_id FROM api_demo_property d
      UNION SELECT s.country, s.cadastre_id FROM section s JOIN api_demo_property d ON d.country = s.country AND d.cadastre_id = s.property_cadastre_id;
    CREATE TEMP VIEW every_property AS
      SELECT country, cadastre_id FROM parcel_property UNION SELECT country, cadastre_id FROM property_register
      UNION SELECT country, cadastre_id FROM section UNION SELECT country, cadastre_id FROM address UNION SELECT country, cadastre_id FROM building
      UNION SELECT country, cadastre_id FROM owner UNION SELECT country, cadastre_id FROM property_transaction UNION SELECT country, cadastre_id FROM tenant;
    CREATE TEMP VIEW demo_orgs AS
      SELECT org_id FROM owner o WHERE (o.country, o.cadastre_id) IN (SELECT * FROM demo_or_section) AND org_id IS NOT NULL
      UNION SELECT org_id FROM tenant t WHERE (t.country, t.cadastre_id) IN (SELECT * FROM demo_or_section)
      UNION SELECT tp.org_id FROM transaction_party tp JOIN property_transaction t ON t.country = tp.country AND t.transaction_id = tp.transaction_id
            WHERE (t.country, t.cadastre_id) IN (SELECT * FROM demo_or_section) AND tp.org_id IS NOT NULL;
    CREATE TEMP VIEW demo_people AS
      SELECT person_id FROM owner o WHERE (o.country, o.cadastre_id) IN (SELECT * FROM demo_or_section) AND person_id IS NOT NULL
      UNION SELECT tp.person_id FROM transaction_party tp JOIN property_transaction t ON t.country = tp.country AND t.transaction_id = tp.transaction_id
            WHERE (t.country, t.cadastre_id) IN (SELECT * FROM demo_or_section) AND tp.person_id IS NOT NULL;
  `).then(() => api.db.query(`
    SELECT 'cadastre id' AS kind, cadastre_id AS value FROM every_property WHERE cadastre_id IS NOT NULL AND (country, cadastre_id) NOT IN (SELECT * FROM demo_or_section)
    UNION SELECT 'address id', address_id FROM address WHERE (country, cadastre_id) NOT IN (SELECT * FROM demo_or_section)
    UNION SELECT 'building number', building_number FROM building WHERE (country, cadastre_id) NOT IN (SELECT * FROM demo_or_section)
    UNION SELECT 'transaction id', transaction_id FROM property_transaction WHERE (country, cadastre_id) NOT IN (SELECT * FROM demo_or_section)
    UNION SELECT 'org number', org_id FROM owner WHERE org_id IS NOT NULL AND org_id NOT IN (SELECT org_id FROM demo_orgs)
    UNION SELECT 'person name', p.name FROM person p
          WHERE p.person_id IN (SELECT person_id FROM owner UNION SELECT person_id FROM transaction_party) AND p.person_id NOT IN (SELECT person_id FROM demo_people)
    ORDER BY 1, 2`));
  return result.rows;
}

interface Exchange {
  request: string;
  response: ApiResponse;
  /**
   * The description and the documentation: the same text for every caller, with no token,
   * built from the route schemas and docs/api.md, not from the store. Their examples name the
   * spec's own sample ids (0180_KUNGSHOLMEN_1_2, which the Swedish fixture also uses).
   */
  static?: boolean;
}

const exchanges: Exchange[] = [];

/** One request as the sandbox; what it sent may come back (a 404's `instance`), nothing else may. */
async function sandboxCall(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; token?: string | null; static?: boolean } = {},
): Promise<ApiResponse> {
  const token = options.token === null ? undefined : (options.token ?? sandbox.token);
  const headers = { ...(options.headers ?? {}) };
  if (method === 'POST' && path !== '/auth/token') headers['idempotency-key'] ??= randomUUID();
  const response = await call(api.baseUrl, method, path, { token, body: options.body, headers });
  exchanges.push({ request: `${decodeURIComponent(path)} ${JSON.stringify(options.body ?? '')}`, response, static: options.static });
  return response;
}

const containsId = (text: string, id: string) => new RegExp(`(?<![0-9A-Za-z_-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z_-])`).test(text);

function leaks(exchange: Exchange): string[] {
  if (exchange.static) return [];
  const text = exchange.response.text;
  return forbidden
    .filter(({ value }) => containsId(text, value) && !containsId(exchange.request, value))
    .map(({ kind, value }) => `${exchange.request} → ${exchange.response.status}: ${kind} ${value}`);
}

/** Every page of a paged list. */
async function allPages(path: string): Promise<ApiResponse[]> {
  const pages = [await sandboxCall('GET', `${path}?pageSize=1`)];
  while (pages.at(-1)!.body?.nextPageToken) pages.push(await sandboxCall('GET', `${path}?pageSize=1&pageToken=${encodeURIComponent(pages.at(-1)!.body.nextPageToken)}`));
  return pages;
}

const property = (cadastreId: string, sub = '', country = 'NO') => `/properties/${country}/${encodeURIComponent(cadastreId)}${sub}`;

/**
 * Per operation of the served description: the calls a sandbox makes, with what each must
 * answer (soft: every operation runs, and the identifier check below sees every body).
 */
const OPERATIONS: Record<string, () => Promise<void>> = {
  getApiCatalog: async () => expect.soft((await sandboxCall('GET', '/.well-known/api-catalog', { token: null })).status).toBe(200),
  getOpenApiDescription: async () => expect.soft((await sandboxCall('GET', '/openapi.yaml', { token: null, static: true })).status).toBe(200),
  getDocumentation: async () => expect.soft((await sandboxCall('GET', '/docs', { token: null, static: true })).status).toBe(200),
  getHealth: async () => expect.soft((await sandboxCall('GET', '/health', { token: null })).status).toBe(200),
  getAuthorizationServerMetadata: async () => expect.soft((await sandboxCall('GET', '/.well-known/oauth-authorization-server', { token: null })).status).toBe(200),
  issueToken: async () => {
    const response = await call(api.baseUrl, 'POST', '/auth/token', {
      rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    exchanges.push({ request: '/auth/token', response });
    expect.soft(response.status).toBe(200);
  },
  getIdentity: async () => expect.soft((await sandboxCall('GET', '/auth/me')).body.clientId).toBe(sandbox.clientId),
  getProperty: async () => {
    expect.soft((await sandboxCall('GET', property(A))).status).toBe(200);
    expect.soft((await sandboxCall('GET', property(A_SECTION))).status).toBe(200);
    expect.soft((await sandboxCall('GET', property(B))).status).toBe(404);
    expect.soft((await sandboxCall('GET', property(SE, '', 'SE'))).status).toBe(404);
  },
  ...Object.fromEntries(
    [
      ['listPropertySections', '/sections'],
      ['listPropertyBuildings', '/buildings'],
      ['listPropertyOwners', '/owners'],
      ['listPropertyTenants', '/tenants'],
      ['listZoningPlans', '/zoning-plans'],
      ['getValuation', '/valuations'],
      ['getUtilization', '/utilization'],
    ].map(([operationId, sub]) => [
      operationId,
      async () => {
        expect.soft((await sandboxCall('GET', property(A, sub))).status).toBe(200);
        expect.soft((await sandboxCall('GET', property(B, sub))).status).toBe(404);
      },
    ]),
  ),
  listPropertyUnits: async () => {
    const units = await sandboxCall('GET', property(A, '/units'));
    // The unit is A's: it stays, without the address and building that stand on B.
    const u9 = units.body.items.find((u: { unitNumber: string }) => u.unitNumber === 'U0101');
    expect.soft(u9).toMatchObject({ cadastreId: A_SECTION });
    expect.soft(u9).not.toHaveProperty('address');
    expect.soft(u9).not.toHaveProperty('buildingNumber');
    expect.soft(units.body.items.find((u: { unitNumber: string }) => u.unitNumber === 'H0101')).toMatchObject({ buildingNumber: '300100001', address: expect.objectContaining({ text: expect.any(String) }) });
    expect.soft((await sandboxCall('GET', property(B, '/units'))).status).toBe(404);
  },
  listComparableTransactions: async () => {
    const comparables = await sandboxCall('GET', property(A, '/comparable-transactions'));
    expect.soft(comparables.body.items.map((c: { id: string }) => c.id)).toEqual(['fx-t3']);
    expect.soft((await sandboxCall('GET', property(B, '/comparable-transactions'))).status).toBe(404);
  },
  listEnergyCertificates: async () => {
    const certificates = await sandboxCall('GET', property(A, '/energy-certificates'));
    expect.soft(certificates.body.items).toHaveLength(2);
    expect.soft((await sandboxCall('GET', property(B, '/energy-certificates'))).status).toBe(404);
  },
  listCertifications: async () => {
    expect.soft((await sandboxCall('GET', property(A, '/certifications'))).body.items).toHaveLength(2);
    expect.soft((await sandboxCall('GET', property(B, '/certifications'))).status).toBe(404);
  },
  listPropertyTransactions: async () => {
    const pages = await allPages(property(A, '/transactions'));
    expect.soft(pages.flatMap((p) => p.body.items.map((t: { id: string }) => t.id))).toEqual(['fx-t5', 'fx-t4', 'fx-t3', 'fx-t2', 'fx-t1']);
    expect.soft((await sandboxCall('GET', property(B, '/transactions'))).status).toBe(404);
  },
  listBuildingPermits: async () => {
    const pages = await allPages(property(A, '/building-permits'));
    expect.soft(pages.flatMap((p) => p.body.items.map((t: { caseId: string }) => t.caseId))).toHaveLength(4);
    expect.soft((await sandboxCall('GET', property(B, '/building-permits'))).status).toBe(404);
  },
  downloadZoningPlanDocument: async () => {
    const plans = await sandboxCall('GET', property(A, '/zoning-plans'));
    const url = new URL(plans.body.items[0].documents[0].downloadUrl);
    expect.soft((await sandboxCall('GET', `${url.pathname}${url.search}`, { token: null })).status).toBe(302);
  },
  lookupProperties: async () => {
    const lookup = await sandboxCall('POST', '/properties/NO/lookups', { body: { cadastreIds: [A, B, A_SECTION] } });
    expect.soft(lookup.body.items.map((p: { cadastreId: string }) => p.cadastreId)).toEqual([A, A_SECTION]);
    expect.soft(lookup.body.notFound).toEqual([B]);
    expect.soft((await sandboxCall('POST', '/properties/SE/lookups', { body: { cadastreIds: [SE] } })).body).toEqual({ items: [], notFound: [SE] });
  },
  searchAddresses: async () => {
    expect.soft((await sandboxCall('GET', '/addresses/NO/Fjordgata')).body.items).toHaveLength(2);
    expect.soft((await sandboxCall('GET', `/addresses/NO/${encodeURIComponent('Tærnveien 3')}`)).body).toEqual({ items: [] });
    expect.soft((await sandboxCall('GET', `/addresses/SE/${encodeURIComponent('Sankt Eriksvägen')}`)).body).toEqual({ items: [] });
  },
  resolveCoordinate: async () => {
    expect.soft((await sandboxCall('GET', '/coordinates/NO/58.0005/3.0005')).body.property.cadastreId).toBe(A);
    expect.soft((await sandboxCall('GET', '/coordinates/NO/58.0005/3.003')).body).toEqual({ buildings: [], addresses: [] });
    expect.soft((await sandboxCall('GET', '/coordinates/SE/59.3305/18.0505')).body).toEqual({ buildings: [], addresses: [] });
  },
  listCompanyProperties: async () => {
    // Holds a section of A and half of B: only the section.
    const mixed = await sandboxCall('GET', '/companies/0192/999888777/properties');
    expect.soft(mixed.body.items.map((p: { cadastreId: string }) => p.cadastreId)).toEqual(['0301-9001-1-0-2']);
    // Holds nothing, sold A once: known through A, with no property to show.
    expect.soft((await sandboxCall('GET', '/companies/0192/911222333/properties')).body).toEqual({ items: [] });
    // Holds only B: no such company for a sandbox.
    const onlyB = await sandboxCall('GET', `/companies/0192/${HOLDS_ONLY_B}/properties`);
    expect.soft(onlyB.status).toBe(404);
    expect.soft(onlyB.body.code).toBe('COMPANY_NOT_FOUND');
  },
  listLandAllocations: async () => {
    expect.soft((await sandboxCall('GET', '/areas/NO/0301/land-allocations')).status).toBe(200);
    expect.soft((await sandboxCall('GET', '/areas/NO/grunnkrets:03010101/land-allocations')).status).toBe(200);
  },
  createSubscription: async () => {
    const subscribe = (target: unknown) => sandboxCall('POST', '/subscriptions', { body: { target, events: ['OWNER_CHANGED'], webhookUrl: WEBHOOK_URL, secret: 'a-sandbox-signing-secret' } });
    expect.soft((await subscribe({ kind: 'PROPERTY', country: 'NO', cadastreId: A })).status).toBe(201);
    expect.soft((await subscribe({ kind: 'PROPERTY', country: 'NO', cadastreId: B })).status).toBe(404);
    expect.soft((await subscribe({ kind: 'COMPANY', scheme: '0192', id: '999888777' })).status).toBe(201);
  },
  listSubscriptions: async () => expect.soft((await sandboxCall('GET', '/subscriptions')).body.items).toHaveLength(2),
  deleteSubscription: async () => {
    for (const subscription of (await sandboxCall('GET', '/subscriptions')).body.items) {
      expect.soft((await sandboxCall('DELETE', `/subscriptions/${subscription.id}`)).status).toBe(204);
    }
  },
};

describe('a sandbox client', () => {
  it('finds the non-demo identifiers the check looks for', () => {
    const kinds = new Set(forbidden.map((f) => f.kind));
    expect([...kinds].sort()).toEqual(['address id', 'building number', 'cadastre id', 'org number', 'person name', 'transaction id']);
    expect(forbidden).toEqual(expect.arrayContaining([
      { kind: 'cadastre id', value: B }, { kind: 'cadastre id', value: SE }, { kind: 'transaction id', value: 'fx-t9' },
      { kind: 'address id', value: 'fx-a3' }, { kind: 'building number', value: '300100009' }, { kind: 'org number', value: HOLDS_ONLY_B },
      { kind: 'person name', value: 'Ola Nordmann' },
    ]));
  });

  it('runs every operation of /openapi.yaml and never receives an identifier of a non-demo property', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    const operations = operationIds(document);
    // A new operation needs its sandbox calls here.
    expect(operations.filter((operationId) => !OPERATIONS[operationId])).toEqual([]);
    // In this file's order (a subscription is created before it is listed and deleted), those the server has.
    for (const [operationId, run] of Object.entries(OPERATIONS)) if (operations.includes(operationId)) await run();
    expect(exchanges.length).toBeGreaterThan(operations.length);
    expect(exchanges.flatMap(leaks)).toEqual([]);
  });

  it('cannot subscribe to a company that holds only non-demo properties', async () => {
    // Needs api/routes/subscriptions.ts checkTarget to ask companyVisible (api/store/visibility.ts).
    const response = await sandboxCall('POST', '/subscriptions', {
      body: { target: { kind: 'COMPANY', scheme: '0192', id: HOLDS_ONLY_B }, events: ['OWNER_CHANGED'], webhookUrl: WEBHOOK_URL, secret: 'a-sandbox-signing-secret' },
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('COMPANY_NOT_FOUND');
    // Nor to a non-demo property however its id is spelled, nor to one of another country.
    for (const [country, cadastreId] of [['NO', '0301-9001-02-0-0'], ['NO', '0301-9001-2-0-0'], ['SE', SE]]) {
      const property = await sandboxCall('POST', '/subscriptions', {
        body: { target: { kind: 'PROPERTY', country, cadastreId }, events: ['OWNER_CHANGED'], webhookUrl: WEBHOOK_URL, secret: 'a-sandbox-signing-secret' },
      });
      expect.soft(property.status, cadastreId).toBe(404);
    }
    const stored = await api.db.query(`SELECT target_cadastre_id, target_id FROM subscription s JOIN api_client c USING (client_id) WHERE c.sandbox`);
    expect(stored.rows.filter((row) => [B, SE, HOLDS_ONLY_B].includes(row.target_cadastre_id ?? row.target_id))).toEqual([]);
  });

  it('leaves live clients as they were: they see every property, sale and company', async () => {
    const live = await createClient(api.db, { scopes: ['properties.read', 'companies.read', 'owners.read'], tier: 'enterprise', sandbox: false });
    const token = (await call(api.baseUrl, 'POST', '/auth/token', {
      rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: live.clientId, client_secret: live.clientSecret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })).body.access_token;
    expect((await call(api.baseUrl, 'GET', property(A, '/comparable-transactions'), { token })).body.items.map((c: { id: string }) => c.id)).toEqual(['fx-t9', 'fx-t3']);
    const u9 = (await call(api.baseUrl, 'GET', property(A, '/units'), { token })).body.items.find((u: { unitNumber: string }) => u.unitNumber === 'U0101');
    expect(u9).toMatchObject({ buildingNumber: '300100009', address: expect.objectContaining({ text: 'Tærnveien 3' }) });
    expect((await call(api.baseUrl, 'GET', `/companies/0192/${HOLDS_ONLY_B}/properties`, { token })).body.items.map((p: { cadastreId: string }) => p.cadastreId)).toEqual([B]);
    expect((await call(api.baseUrl, 'GET', property(B), { token })).status).toBe(200);
  });

  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});

function operationIds(document: OpenApiDocument): string[] {
  return Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId)).filter(Boolean);
}
