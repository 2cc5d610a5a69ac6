import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clientWithToken, get, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

let api: ApiTest;
let reader: TestClient; // properties.read only
let ownerReader: TestClient; // + owners.read
let sandbox: TestClient;
const A = '/properties/NO/0301-9001-1-0-0';
const B = '/properties/NO/0301-9001-2-0-0';

beforeAll(async () => {
  api = await startApiTest();
  reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'companies.read', 'areas.read'] });
  ownerReader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'owners.read', 'companies.read'] });
  // The sandbox sees only the demo properties flagged for it: here property B.
  await api.db.query(`INSERT INTO api_demo_property (country, cadastre_id) VALUES ('NO', '0301-9001-2-0-0')`);
  sandbox = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read', 'companies.read'], sandbox: true, tier: 'sandbox', burstLimit: 100 });
});
afterAll(async () => {
  await api?.stop();
});

const money = (amount: string, currency = 'NOK') => ({ amount, currency });

describe('GET /properties/{country}/{cadastreId}', () => {
  it('answers the Norwegian property with counts, totals, money, location, addresses and links', async () => {
    const response = await get(api.baseUrl, A, reader.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      country: 'NO',
      cadastreId: '0301-9001-1-0-0',
      municipality: { code: '0301', name: 'Oslo' },
      areaM2: 13100,
      plotCount: 1,
      propertyType: 'GRUNNEIENDOM',
      buildingCount: 2,
      sectionCount: 2,
      unitCount: 2,
      totalUsableAreaM2: 1500,
      totalGrossAreaM2: 1800,
      builtOverAreaM2: 460,
      builtOverAreaPct: 3.51,
      averageFloors: 4,
      taxationValue: money('12500000.50'),
      establishedDate: '1962-05-14',
      location: { lat: expect.closeTo(58.0005, 3), lon: expect.closeTo(3.001, 3) },
      addresses: [
        expect.objectContaining({ text: 'Fjordgata 12', streetName: 'Fjordgata', houseNumber: '12', postalCode: '0150', postalPlace: 'OSLO', country: 'NO', cadastreId: '0301-9001-1-0-0' }),
        expect.objectContaining({ text: 'Fjordgata 12B', houseNumber: '12B' }),
      ],
      links: ['sections', 'buildings', 'units'].map((sub) => ({ href: `${api.baseUrl}${A}/${sub}`, title: expect.any(String) })),
    });
    // The links lead somewhere.
    for (const link of response.body.links) expect((await get(api.baseUrl, new URL(link.href).pathname, reader.token)).status).toBe(200);
  });

  it('answers the Swedish property with the fields the register gives', async () => {
    const response = await get(api.baseUrl, '/properties/SE/0180_KUNGSHOLMEN_1_2', reader.token);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      country: 'SE',
      cadastreId: '0180_KUNGSHOLMEN_1_2',
      municipality: { code: '0180', name: 'Stockholm' },
      areaM2: 12650,
      plotCount: 1,
      propertyType: 'FASTIGHET',
    });
    expect(response.body.addresses.map((a: { text: string }) => a.text).sort()).toEqual(['Hantverkargatan 12A', 'Sankt Eriksvägen 3', 'Östermalmsgatan 5']);
    // A lower-case trakt is the same property.
    expect((await get(api.baseUrl, '/properties/SE/0180_kungsholmen_1_2', reader.token)).body.cadastreId).toBe('0180_KUNGSHOLMEN_1_2');
  });

  it('404 for an unknown property and an unserved country; 400 for an id of the wrong shape', async () => {
    const unknown = await get(api.baseUrl, '/properties/NO/0301-1-1-0-0', reader.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'PROPERTY_NOT_FOUND', type: `${api.baseUrl}/problems/not-found` });
    expect((await get(api.baseUrl, '/properties/DK/0301-9001-1-0-0', reader.token)).body.code).toBe('COUNTRY_NOT_SERVED');
    const malformed = await get(api.baseUrl, '/properties/NO/0301_9001_1', reader.token);
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_FAILED');
    for (const sub of ['sections', 'owners', 'transactions', 'valuations', 'building-permits']) {
      expect((await get(api.baseUrl, `/properties/NO/0301-1-1-0-0/${sub}`, reader.token)).status).toBe(404);
    }
  });
});

describe('property sub-resources', () => {
  it('sections carry their share, use and owners; a person name only with owners.read', async () => {
    const without = await get(api.baseUrl, `${A}/sections`, reader.token);
    expect(without.body.items).toEqual([
      { sectionNumber: '1', cadastreId: '0301-9001-1-0-1', share: { numerator: 60, denominator: 100 }, useType: 'BOLIG', owners: [{ kind: 'PERSON', person: { birthYear: 1971 }, share: { numerator: 1, denominator: 1 }, registeredAt: '2015-06-01T10:00:00Z' }] },
      {
        sectionNumber: '2', cadastreId: '0301-9001-1-0-2', share: { numerator: 40, denominator: 100 }, useType: 'NAERING',
        owners: [{ kind: 'ORGANIZATION', organization: { organizationIdentifier: { scheme: '0192', id: '999888777' }, name: 'Fjordgata Eiendom AS', country: 'NO' }, share: { numerator: 1, denominator: 1 }, registeredAt: '2018-02-01T09:00:00Z' }],
      },
    ]);
    const withNames = await get(api.baseUrl, `${A}/sections`, ownerReader.token);
    expect(withNames.body.items[0].owners[0].person).toEqual({ name: 'Kari Nordmann', birthYear: 1971 });
    expect(without.text).not.toContain('Kari');
  });

  it('owners are the rights holders across all sections', async () => {
    const response = await get(api.baseUrl, `${A}/owners`, ownerReader.token);
    expect(response.body.items.map((o: { kind: string }) => o.kind)).toEqual(['PERSON', 'ORGANIZATION']);
    expect(response.body.items[0].person.name).toBe('Kari Nordmann');
    const b = await get(api.baseUrl, `${B}/owners`, reader.token);
    expect(b.body.items).toHaveLength(2);
    expect(b.text).not.toContain('Ola');
  });

  it('buildings with type, status history, floors, elevation and details', async () => {
    const response = await get(api.baseUrl, `${A}/buildings`, reader.token);
    const [main, garage] = response.body.items;
    expect(main).toMatchObject({
      buildingNumber: '300100001',
      buildingType: { code: '142', name: expect.any(String) },
      status: 'IN_USE',
      builtYear: 1962,
      floors: 4,
      grossAreaM2: 1800,
      usableAreaM2: 1500,
      footprintM2: 410.5,
      builtOverAreaM2: 420,
      builtOverAreaPct: 3.21,
      dwellingUnitCount: 12,
      hasLift: true,
      waterSupply: 'PUBLIC',
      energySources: ['ELECTRICITY', 'DISTRICT_HEATING'],
      heatingTypes: ['CENTRAL', 'UNDERFLOOR'],
      elevation: { baseElevationM: 12.5, highestPointM: 27.1, heightAboveGroundM: 14.6 },
      statusHistory: [
        { status: 'UNDER_CONSTRUCTION', changedDate: '1960-03-01', registeredDate: '1960-03-04', reason: 'Igangsettingstillatelse' },
        { status: 'IN_USE', changedDate: '1962-05-14', registeredDate: '1962-05-20' },
      ],
      floorDetails: [
        { floorNumber: 1, floorKind: 'GROUND', usableAreaM2: 380, roomCount: 12, dwellingUnitCount: 3 },
        { floorNumber: 2, floorKind: 'MAIN', usableAreaM2: 375, roomCount: 12, dwellingUnitCount: 3 },
      ],
      location: { lat: 58.0004, lon: 3.0006 },
    });
    expect(garage).toMatchObject({ buildingNumber: '300100002', status: 'UNDER_CONSTRUCTION', footprintM2: 40 });
    expect(garage.builtYear).toBeUndefined();
    expect((await get(api.baseUrl, '/properties/SE/0180_KUNGSHOLMEN_1_2/buildings', reader.token)).body).toEqual({ items: [] });
  });

  it('units of the property and its sections, each with its address', async () => {
    const response = await get(api.baseUrl, `${A}/units`, reader.token);
    expect(response.body.items).toHaveLength(2);
    expect(response.body.items[0]).toMatchObject({
      unitNumber: 'H0101', buildingNumber: '300100001', floor: 1, usableAreaM2: 72.5, useType: 'BOLIG', cadastreId: '0301-9001-1-0-1',
      roomCount: 3, kitchenAccess: 'OWN_KITCHEN', ownershipForm: 'FREEHOLD', energyLabel: 'C', toBeDecommissioned: false,
      address: { text: 'Fjordgata 12', cadastreId: '0301-9001-1-0-0', postalCode: '0150' },
    });
  });

  it('transactions newest first with money and parties, paged with tokens bound to their query', async () => {
    const first = await get(api.baseUrl, `${A}/transactions?pageSize=2`, ownerReader.token);
    expect(first.body.items.map((t: { id: string }) => t.id)).toEqual(['fx-t5', 'fx-t4']);
    expect(first.body.items[0]).toEqual({
      id: 'fx-t5', registeredAt: '2018-02-01T09:00:00Z', kind: 'SALE', price: money('11000000.00'), share: { numerator: 1, denominator: 1 },
      buyers: [{ kind: 'ORGANIZATION', organization: { organizationIdentifier: { scheme: '0192', id: '999888777' }, name: 'Fjordgata Eiendom AS', country: 'NO' }, share: { numerator: 1, denominator: 1 } }],
      sellers: [{ kind: 'PERSON', person: { name: 'Kari Nordmann', birthYear: 1971 }, share: { numerator: 1, denominator: 1 } }],
      source: 'MAPPING_AUTHORITY_TINGLYSING',
    });
    expect(first.body.nextPageToken).toEqual(expect.any(String));
    const second = await get(api.baseUrl, `${A}/transactions?pageSize=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`, ownerReader.token);
    expect(second.body.items.map((t: { id: string }) => t.id)).toEqual(['fx-t3', 'fx-t2']);
    expect(second.body.items[0].price).toEqual(money('6250000.50'));
    const third = await get(api.baseUrl, `${A}/transactions?pageSize=2&pageToken=${encodeURIComponent(second.body.nextPageToken)}`, ownerReader.token);
    expect(third.body.items.map((t: { id: string }) => t.id)).toEqual(['fx-t1']);
    expect(third.body.items[0].price).toBeUndefined();
    expect(third.body).not.toHaveProperty('nextPageToken');
    // Default page size 50: everything at once, no token.
    const all = await get(api.baseUrl, `${A}/transactions`, reader.token);
    expect(all.body.items).toHaveLength(5);
    expect(all.body).not.toHaveProperty('nextPageToken');
    expect(all.body.items[1].buyers[0].person).toEqual({ birthYear: 1971 });
    // A token is bound to its property, its operation and its client, and cannot be edited.
    const token = first.body.nextPageToken as string;
    const misuse = [
      await get(api.baseUrl, `${B}/transactions?pageToken=${encodeURIComponent(token)}`, ownerReader.token),
      await get(api.baseUrl, `${A}/building-permits?pageToken=${encodeURIComponent(token)}`, ownerReader.token),
      await get(api.baseUrl, `${A}/transactions?pageToken=${encodeURIComponent(token)}`, reader.token),
      await get(api.baseUrl, `${A}/transactions?pageToken=${encodeURIComponent(`${token.slice(0, 10)}${token[10] === 'x' ? 'y' : 'x'}${token.slice(11)}`)}`, ownerReader.token),
      await get(api.baseUrl, `${A}/transactions?pageToken=garbage`, ownerReader.token),
    ];
    for (const response of misuse) {
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('INVALID_PAGE_TOKEN');
    }
    for (const size of ['0', '101', 'x', '1.5']) expect((await get(api.baseUrl, `${A}/transactions?pageSize=${size}`, reader.token)).status).toBe(400);
    // An empty result is 200 with items: [].
    expect((await get(api.baseUrl, '/properties/SE/0180_KUNGSHOLMEN_1_2/transactions', reader.token)).body).toEqual({ items: [] });
  });

  it('building permits newest first, undated last, paged', async () => {
    const first = await get(api.baseUrl, `${A}/building-permits?pageSize=2`, reader.token);
    expect(first.body.items).toEqual([
      { caseId: 'fx-b2', caseNumber: '2021/55', buildingNumber: '300100001', kind: 'ALTERATION', status: 'PENDING', description: 'Heis', appliedDate: '2021-02-01' },
      { caseId: 'fx-b1', caseNumber: '2019/101', buildingNumber: '300100002', kind: 'NEW_BUILDING', status: 'APPROVED', description: 'Garasje', appliedDate: '2019-05-01', decidedDate: '2019-07-01' },
    ]);
    const rest = await get(api.baseUrl, `${A}/building-permits?pageSize=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`, reader.token);
    expect(rest.body).toEqual({ items: [{ caseId: 'fx-b3', kind: 'DEMOLITION', status: 'WITHDRAWN', description: 'Uthus' }] });
  });

  it('tenants, comparable transactions, valuation and utilization answer from the derived tables', async () => {
    expect((await get(api.baseUrl, `${A}/tenants`, reader.token)).body.items).toEqual([
      {
        organization: { organizationIdentifier: { scheme: '0192', id: '999888777' }, name: 'Fjordgata Eiendom AS', country: 'NO' },
        verification: { source: 'ENHETSREGISTERET', confidence: 'HIGH', lastSeenAt: '2026-11-20T02:00:00Z' },
        employees: 4, naceCode: '68.209', naceName: 'Utleie av egen eller leid fast eiendom ellers', unitNumber: 'H0201', legalForm: 'AS',
        foundedDate: '2010-01-05', movedInDate: '2018-02-01', website: 'https://fjordgata.example.org', isOwner: true,
      },
    ]);
    const comparables = await get(api.baseUrl, `${A}/comparable-transactions`, reader.token);
    expect(comparables.body.items).toEqual([
      expect.objectContaining({ id: 'fx-t9', distanceM: 117.4, pricePerM2: money('53435.11'), similarity: 0.87, price: money('7000000.00'), buyers: [{ kind: 'PERSON', person: { birthYear: 1980 }, share: { numerator: 1, denominator: 2 } }] }),
    ]);
    expect((await get(api.baseUrl, `${A}/valuations`, reader.token)).body).toEqual({
      value: { estimate: money('13200000.00'), low: money('12100000.00'), high: money('14500000.00') },
      rent: { estimatePerM2Year: money('2150.00'), low: money('1900.00'), high: money('2400.00') },
      method: 'AVM',
      valuedAt: '2026-11-20T02:30:00Z',
    });
    expect((await get(api.baseUrl, `${A}/utilization`, reader.token)).body).toEqual({ allowedBya: 35, allowedBraM2: 4000, builtBraM2: 1800, remainingBraM2: 2200, basis: 'Reguleringsplan S-9001' });
    // Not computed yet for B: empty lists and 404s, as the spec says.
    expect((await get(api.baseUrl, `${B}/tenants`, reader.token)).body).toEqual({ items: [] });
    expect((await get(api.baseUrl, `${B}/comparable-transactions`, reader.token)).body).toEqual({ items: [] });
    expect((await get(api.baseUrl, `${B}/valuations`, reader.token)).body).toMatchObject({ status: 404, code: 'VALUATION_NOT_FOUND' });
    expect((await get(api.baseUrl, `${B}/utilization`, reader.token)).body).toMatchObject({ status: 404, code: 'UTILIZATION_NOT_FOUND' });
  });

  it('energy certificates and certifications', async () => {
    expect((await get(api.baseUrl, `${A}/energy-certificates`, reader.token)).body.items).toEqual([
      { buildingNumber: '300100001', label: 'C', heatingGrade: 'YELLOW', issuedDate: '2019-11-01', validToDate: '2029-11-01', source: 'ENERGY_AGENCY' },
    ]);
    expect((await get(api.baseUrl, `${A}/certifications`, reader.token)).body.items).toEqual([
      { scheme: 'BREEAM-NOR', rating: 'VERY_GOOD', certifiedDate: '2021-03-01', certifiedAreaM2: 1500, buildingNumber: '300100001' },
    ]);
  });

  it('zoning plans covering the property, with signed, time-limited document URLs', async () => {
    const response = await get(api.baseUrl, `${A}/zoning-plans`, reader.token);
    // S-9002 only touches A's boundary: it does not cover the property.
    expect(response.body.items).toHaveLength(1);
    const [plan] = response.body.items;
    expect(plan).toMatchObject({ planId: 'S-9001', name: 'Reguleringsplan for Fjordgata', status: 'ADOPTED', purpose: 'Bolig og næring', adoptedDate: '2004-06-23', municipality: { code: '0301', name: 'Oslo' } });
    const [document] = plan.documents;
    expect(document).toMatchObject({ id: 'doc-1', kind: 'ZONING_PLAN', title: 'Plankart', publishedDate: '2004-06-23', mediaType: 'application/pdf' });
    const url = new URL(document.downloadUrl);
    expect(url.searchParams.get('sig')).toEqual(expect.any(String));
    expect(Number(url.searchParams.get('exp'))).toBeGreaterThan(Date.now() / 1000);
    const download = await call(api.baseUrl, 'GET', `${url.pathname}${url.search}`);
    expect(download.status).toBe(302);
    expect(download.headers.get('location')).toBe('https://documents.example.org/plans/S-9001/plankart.pdf');
    url.searchParams.set('exp', String(Number(url.searchParams.get('exp')) + 3600));
    expect((await call(api.baseUrl, 'GET', `${url.pathname}${url.search}`)).status).toBe(404);
  });
});

describe('POST /properties/{country}/lookups', () => {
  const lookup = (client: TestClient, body: unknown, key: string | null = randomUUID(), country = 'NO') =>
    call(api.baseUrl, 'POST', `/properties/${country}/lookups`, { token: client.token, body, headers: key === null ? {} : { 'idempotency-key': key } });

  it('resolves several ids, lists the rest in notFound, and counts each id as one call', async () => {
    const client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
    const response = await lookup(client, { cadastreIds: ['0301-9001-1-0-0', '0301-1-1-0-0', 'nonsense', '0301-9001-2-0-0'] });
    expect(response.status).toBe(200);
    expect(response.body.items.map((p: { cadastreId: string }) => p.cadastreId)).toEqual(['0301-9001-1-0-0', '0301-9001-2-0-0']);
    expect(response.body.items[0]).toMatchObject({ taxationValue: money('12500000.50'), links: expect.any(Array) });
    expect(response.body.notFound).toEqual(['0301-1-1-0-0', 'nonsense']);
    expect((await get(api.baseUrl, '/auth/me', client.token)).body.callsToday).toBe(4 + 1);
  });

  it('replays the same key and body, refuses the same key with another body (409), and requires a key', async () => {
    const key = randomUUID();
    const first = await lookup(reader, { cadastreIds: ['0301-9001-1-0-0'] }, key);
    const replay = await lookup(reader, { cadastreIds: ['0301-9001-1-0-0'] }, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await lookup(reader, { cadastreIds: ['0301-9001-2-0-0'] }, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', type: `${api.baseUrl}/problems/conflict` });
    const missing = await lookup(reader, { cadastreIds: ['0301-9001-1-0-0'] }, null);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('IDEMPOTENCY_KEY_MISSING');
    expect((await lookup(reader, { cadastreIds: ['0301-9001-1-0-0'] }, 'not-a-uuid')).status).toBe(400);
  });

  it('400 for an empty, oversized or unknown-field body; 404 when the country is not served', async () => {
    expect((await lookup(reader, { cadastreIds: [] })).status).toBe(400);
    expect((await lookup(reader, { cadastreIds: Array.from({ length: 101 }, (_, i) => `0301-1-${i}-0-0`) })).status).toBe(400);
    const unknownField = await lookup(reader, { cadastreIds: ['0301-9001-1-0-0'], extra: true });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.errors).toEqual([expect.objectContaining({ location: 'body/extra' })]);
    expect((await lookup(reader, { cadastreIds: [42] })).status).toBe(400);
    const denmark = await lookup(reader, { cadastreIds: ['0301-9001-1-0-0'] }, randomUUID(), 'DK');
    expect(denmark.status).toBe(404);
    expect(denmark.body.code).toBe('COUNTRY_NOT_SERVED');
  });
});

describe('sandbox clients', () => {
  it('see only demo properties, everywhere', async () => {
    expect((await get(api.baseUrl, B, sandbox.token)).status).toBe(200);
    expect((await get(api.baseUrl, A, sandbox.token)).status).toBe(404);
    expect((await get(api.baseUrl, `${A}/owners`, sandbox.token)).status).toBe(404);
    const bulk = await call(api.baseUrl, 'POST', '/properties/NO/lookups', { token: sandbox.token, body: { cadastreIds: ['0301-9001-1-0-0', '0301-9001-2-0-0'] }, headers: { 'idempotency-key': randomUUID() } });
    expect(bulk.body.notFound).toEqual(['0301-9001-1-0-0']);
    expect((await get(api.baseUrl, '/coordinates/NO/58.0005/3.0005', sandbox.token)).body).toEqual({ buildings: [], addresses: [] });
    expect((await get(api.baseUrl, '/coordinates/NO/58.0005/3.003', sandbox.token)).body.property.cadastreId).toBe('0301-9001-2-0-0');
    expect((await get(api.baseUrl, '/addresses/NO/Fjordgata', sandbox.token)).body).toEqual({ items: [] });
    const company = await get(api.baseUrl, '/companies/0192/999888777/properties', sandbox.token);
    expect(company.body.items.map((p: { cadastreId: string }) => p.cadastreId)).toEqual(['0301-9001-2-0-0']);
  });
});

describe('companies and areas', () => {
  it('lists a company’s properties, paged', async () => {
    const first = await get(api.baseUrl, '/companies/0192/999888777/properties?pageSize=1', reader.token);
    expect(first.body.items).toEqual([
      {
        country: 'NO', cadastreId: '0301-9001-1-0-2', municipality: { code: '0301', name: 'Oslo' }, propertyType: 'EIERSEKSJON',
        share: { numerator: 1, denominator: 1 }, registeredAt: '2018-02-01T09:00:00Z', links: expect.any(Array),
      },
    ]);
    const second = await get(api.baseUrl, `/companies/0192/999888777/properties?pageSize=1&pageToken=${encodeURIComponent(first.body.nextPageToken)}`, reader.token);
    expect(second.body.items.map((p: { cadastreId: string }) => p.cadastreId)).toEqual(['0301-9001-2-0-0']);
    expect(second.body).not.toHaveProperty('nextPageToken');
    expect((await get(api.baseUrl, '/companies/0192/911222333/properties', reader.token)).body).toEqual({ items: [] });
    expect((await get(api.baseUrl, '/companies/0192/123123123/properties', reader.token)).body.code).toBe('COMPANY_NOT_FOUND');
    expect((await get(api.baseUrl, '/companies/ABC/999888777/properties', reader.token)).status).toBe(400);
  });

  it('lists an area’s land allocations by municipality, grunnkrets or postal code, newest first, paged', async () => {
    const municipality = await get(api.baseUrl, '/areas/NO/0301/land-allocations?pageSize=2', reader.token);
    expect(municipality.body.items.map((l: { id: string }) => l.id)).toEqual(['fx-l1', 'fx-l2']);
    expect(municipality.body.items[0]).toEqual({
      id: 'fx-l1', title: 'Tomt ved Fjordgata', purpose: 'BOLIG', status: 'OPEN', municipality: { code: '0301', name: 'Oslo' }, grunnkretsCode: '03010101',
      postalCode: '0150', areaM2: 2400, price: money('3500000.00'), announcedDate: '2026-09-01', deadlineDate: '2026-12-01', url: 'https://www.oslo.kommune.no/tomt/1',
      location: { lat: 58.0015, lon: 3.001 },
    });
    const rest = await get(api.baseUrl, `/areas/NO/0301/land-allocations?pageSize=2&pageToken=${encodeURIComponent(municipality.body.nextPageToken)}`, reader.token);
    expect(rest.body).toEqual({ items: [expect.objectContaining({ id: 'fx-l3' })] });
    expect((await get(api.baseUrl, '/areas/NO/grunnkrets:03010101/land-allocations', reader.token)).body.items).toHaveLength(2);
    expect((await get(api.baseUrl, '/areas/NO/postal-code:0150/land-allocations', reader.token)).body.items).toHaveLength(1);
    expect((await get(api.baseUrl, '/areas/SE/0180/land-allocations', reader.token)).body).toEqual({ items: [] });
    expect((await get(api.baseUrl, '/areas/NO/9999/land-allocations', reader.token)).body.code).toBe('AREA_NOT_FOUND');
    expect((await get(api.baseUrl, '/areas/NO/somewhere/land-allocations', reader.token)).status).toBe(400);
  });
});

describe('OpenAPI conformance', () => {
  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
