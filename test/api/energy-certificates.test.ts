import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithToken, get, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * GET /properties/{country}/{cadastreId}/energy-certificates: the certificates of the
 * property's buildings. The fixture property A (0301-9001-1-0-0) is divided into two sections
 * and has buildings 300100001 and 300100002; property B has no building.
 */
let api: ApiTest;
let reader: TestClient;
const A = '/properties/NO/0301-9001-1-0-0';
const B = '/properties/NO/0301-9001-2-0-0';
/** The Swedish fixture property; a declaration covering it and its neighbour names the neighbour first. */
const SE = '/properties/SE/0180_KUNGSHOLMEN_1_2';

beforeAll(async () => {
  api = await startApiTest();
  reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
  await api.db.query(
    `INSERT INTO energy_certificate (country, certificate_id, cadastre_id, building_number, municipality_code, label, heating_grade, issued_date, valid_to_date, source, row_hash, published_run_id) VALUES
       -- A flat's certificate, registered on its section of A.
       ('NO', 'ec-section', '0301-9001-1-0-2', '300100001', '0301', 'B', 'GREEN', '2021-05-01', '2031-05-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test'),
       -- Registered under a matrikkel number the store does not know, for a building on A.
       ('NO', 'ec-other-id', '0301-9001-77-0-0', '300100002', '0301', 'D', 'ORANGE', '2020-02-01', '2030-02-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test'),
       -- Another property's building: not A's.
       ('NO', 'ec-elsewhere', '0301-9001-78-0-0', '399999999', '0301', 'A', 'GREEN', '2022-01-01', '2032-01-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test')`,
  );
  await api.db.query(
    `INSERT INTO energy_certificate (country, certificate_id, cadastre_id, cadastre_ids, municipality_code, label, issued_date, valid_to_date, source, row_hash, published_run_id) VALUES
       -- One energideklaration for two fastigheter: the fixture property is the second it names.
       ('SE', '300000001', '0180_KUNGSHOLMEN_1_1', ARRAY['0180_KUNGSHOLMEN_1_1', '0180_KUNGSHOLMEN_1_2'], '0180', 'E', '2021-01-01', '2031-01-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test'),
       -- A declaration of the neighbour alone.
       ('SE', '300000002', '0180_KUNGSHOLMEN_1_1', ARRAY['0180_KUNGSHOLMEN_1_1'], '0180', 'B', '2023-03-01', '2033-03-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test')`,
  );
});
afterAll(async () => {
  await api?.stop();
});

describe('GET /properties/{country}/{cadastreId}/energy-certificates', () => {
  it('lists the certificates of the property, of its sections and of the buildings on it, newest first', async () => {
    const response = await get(api.baseUrl, `${A}/energy-certificates`, reader.token);
    expect(response.status).toBe(200);
    expect(response.body.items).toEqual([
      { buildingNumber: '300100001', label: 'B', heatingGrade: 'GREEN', issuedDate: '2021-05-01', validToDate: '2031-05-01', source: 'ENERGY_AGENCY' },
      { buildingNumber: '300100002', label: 'D', heatingGrade: 'ORANGE', issuedDate: '2020-02-01', validToDate: '2030-02-01', source: 'ENERGY_AGENCY' },
      { buildingNumber: '300100001', label: 'C', heatingGrade: 'YELLOW', issuedDate: '2019-11-01', validToDate: '2029-11-01', source: 'ENERGY_AGENCY' },
    ]);
    // Every certificate names a building the property's /buildings lists.
    const buildings = (await get(api.baseUrl, `${A}/buildings`, reader.token)).body.items.map((b: { buildingNumber: string }) => b.buildingNumber);
    for (const certificate of response.body.items) expect(buildings).toContain(certificate.buildingNumber);
  });

  it('does not lend one property another property\'s certificates', async () => {
    expect((await get(api.baseUrl, `${B}/energy-certificates`, reader.token)).body.items).toEqual([]);
  });

  it('lists a Swedish declaration under every property it covers, not only the first it names', async () => {
    const response = await get(api.baseUrl, `${SE}/energy-certificates`, reader.token);
    expect(response.status).toBe(200);
    expect(response.body.items).toEqual([{ label: 'E', issuedDate: '2021-01-01', validToDate: '2031-01-01', source: 'ENERGY_AGENCY' }]);
  });

  it('every response matches the served OpenAPI description', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
