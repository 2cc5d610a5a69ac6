import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithToken, get, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * A Norwegian unit's `energyLabel` comes from Enova's certificates, which name the building, the
 * bruksenhetsnummer and the matrikkelenhet a certificate was issued for. The fixture's property
 * B (0301-9001-2-0-0) gets two buildings with units and certificates of its own here.
 */
let api: ApiTest;
let reader: TestClient;
const B = '/properties/NO/0301-9001-2-0-0';

beforeAll(async () => {
  api = await startApiTest();
  reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
  await api.db.query(
    `INSERT INTO unit (country, unit_id, unit_number, building_number, cadastre_id, use_type, energy_label, row_hash, published_run_id) VALUES
       ('NO', 'u-h0101', 'H0101', '300200001', '0301-9001-2-0-0', 'BOLIG', NULL, gen_random_uuid(), 'test'),
       ('NO', 'u-h0201', 'H0201', '300200001', '0301-9001-2-0-0', 'BOLIG', NULL, gen_random_uuid(), 'test'),
       ('NO', 'u-h0301', 'H0301', '300200001', '0301-9001-2-0-0', 'BOLIG', NULL, gen_random_uuid(), 'test'),
       -- No certificate: the label the matrikkel exchange file gave stays.
       ('NO', 'u-other', 'H0101', '300200002', '0301-9001-2-0-0', 'BOLIG', 'G', gen_random_uuid(), 'test')`,
  );
  await api.db.query(
    `INSERT INTO energy_certificate (country, certificate_id, cadastre_id, building_number, unit_number, municipality_code, label, issued_date, valid_to_date, source, row_hash, published_run_id) VALUES
       -- H0101 was certified twice: the newer certificate's label is the unit's.
       ('NO', 'e-h0101-old', '0301-9001-2-0-0', '300200001', 'H0101', '0301', 'D', '2018-01-01', '2028-01-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test'),
       ('NO', 'e-h0101-new', '0301-9001-2-0-0', '300200001', 'H0101', '0301', 'B', '2025-06-01', '2035-06-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test'),
       -- H0201's only certificate lapsed ten years after it was issued, and the building has none.
       ('NO', 'e-h0201', '0301-9001-2-0-0', '300200001', 'H0201', '0301', 'F', '2012-01-01', '2022-01-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test'),
       -- The same unit number in another building, on another property: not B's H0101.
       ('NO', 'e-elsewhere', '0301-9001-78-0-0', '399999999', 'H0101', '0301', 'A', '2025-01-01', '2035-01-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test')`,
  );
});
afterAll(async () => {
  await api?.stop();
});

async function labels(): Promise<Record<string, string | undefined>> {
  const response = await get(api.baseUrl, `${B}/units`, reader.token);
  expect(response.status).toBe(200);
  return Object.fromEntries(response.body.items.map((u: { buildingNumber: string; unitNumber: string; energyLabel?: string }) => [`${u.buildingNumber}/${u.unitNumber}`, u.energyLabel]));
}

describe('GET /properties/NO/{cadastreId}/units: energyLabel', () => {
  it('is the label of the unit\'s newest valid certificate, and absent when its only certificate has lapsed', async () => {
    expect(await labels()).toEqual({
      '300200001/H0101': 'B',
      '300200001/H0201': undefined,
      '300200001/H0301': undefined,
      '300200002/H0101': 'G',
    });
  });

  it('falls back to a certificate for the whole building when the unit has none of its own', async () => {
    await api.db.query(
      `INSERT INTO energy_certificate (country, certificate_id, cadastre_id, building_number, unit_number, municipality_code, label, issued_date, valid_to_date, source, row_hash, published_run_id) VALUES
         ('NO', 'e-building', '0301-9001-2-0-0', '300200001', NULL, '0301', 'E', '2024-03-01', '2034-03-01', 'ENERGY_AGENCY', gen_random_uuid(), 'test')`,
    );
    expect(await labels()).toEqual({
      '300200001/H0101': 'B',
      '300200001/H0201': 'E',
      '300200001/H0301': 'E',
      '300200002/H0101': 'G',
    });
  });

  it('every response matches the served OpenAPI description', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
