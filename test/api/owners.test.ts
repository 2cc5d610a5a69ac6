import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithToken, get, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * GET /properties/{country}/{cadastreId}/owners: the rights holders of the property as a whole.
 * A sectioned property (eierseksjonssameie) has no title holders of its own: each section's
 * holders hold their share of that section, and the section is a share of the property.
 */
let api: ApiTest;
let reader: TestClient;
const PROPERTY = '0301-9002-7-0-0';

// Section number, its share of the property, and its holders' shares of the section.
const SECTIONS: [string, [number, number], [number, number][]][] = [
  ['1', [125, 1000], [[1, 1]]],
  ['2', [125, 1000], [[1, 2], [1, 2]]],
  ['3', [250, 1000], [[1, 3], [2, 3]]],
  ['4', [100, 1000], [[3, 4], [1, 4]]],
  ['5', [100, 1000], [[1, 1]]],
  ['6', [300, 1000], [[1, 2], [1, 4], [1, 4]]],
];

beforeAll(async () => {
  api = await startApiTest();
  reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
  await api.db.query(
    `INSERT INTO parcel (country, parcel_id, municipality_code, geom, area_m2, source_srid, row_hash, published_run_id)
     VALUES ('NO', 'owners-test-parcel', '0301', ST_Multi(ST_MakeEnvelope(3.1, 58.1, 3.101, 58.101, 4326)), 5000, 25832, gen_random_uuid(), 'test')`,
  );
  await api.db.query(`INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel) VALUES ('NO', 'owners-test-parcel', $1, true)`, [PROPERTY]);
  let ownerIndex = 0;
  for (const [number, [sectionNum, sectionDen], holders] of SECTIONS) {
    const sectionId = PROPERTY.replace(/-0$/, `-${number}`);
    await api.db.query(
      `INSERT INTO section (country, cadastre_id, property_cadastre_id, section_number, share_numerator, share_denominator, use_type, row_hash, published_run_id)
       VALUES ('NO', $1, $2, $3, $4, $5, 'BOLIG', gen_random_uuid(), 'test')`,
      [sectionId, PROPERTY, number, sectionNum, sectionDen],
    );
    for (const [num, den] of holders) {
      ownerIndex += 1;
      await api.db.query(
        `INSERT INTO owner (country, owner_key, cadastre_id, kind, person_id, birth_year, share_numerator, share_denominator, registered_at, row_hash, published_run_id)
         VALUES ('NO', $1, $2, 'PERSON', $1, 1950 + $3::int, $4, $5, '2020-01-01T00:00:00Z', gen_random_uuid(), 'test')`,
        [`owners-test-${String(ownerIndex).padStart(2, '0')}`, sectionId, ownerIndex, num, den],
      );
    }
  }
});
afterAll(async () => {
  await api?.stop();
});

const fraction = (share: { numerator: number; denominator: number }) => share.numerator / share.denominator;

describe('GET /properties/{country}/{cadastreId}/owners of a sectioned property', () => {
  it('gives every holder their share of the whole property, so the shares add up to 1', async () => {
    const response = await get(api.baseUrl, `/properties/NO/${PROPERTY}/owners`, reader.token);
    expect(response.status).toBe(200);
    const owners = response.body.items as { person: { birthYear: number }; share: { numerator: number; denominator: number } }[];
    const expected = SECTIONS.flatMap(([, [sn, sd], holders]) => holders.map(([n, d]) => (sn * n) / (sd * d)));
    expect(owners).toHaveLength(expected.length);
    owners.forEach((owner, i) => expect(fraction(owner.share)).toBeCloseTo(expected[i], 12));
    expect(owners.reduce((sum, owner) => sum + fraction(owner.share), 0)).toBeCloseTo(1, 12);
    // Reduced fractions: section 6 (300/1000) × 1/4 (its last holder, the 11th) is 3/40.
    expect(owners.find((o) => o.person.birthYear === 1950 + 11)!.share).toEqual({ numerator: 3, denominator: 40 });
  });

  it('agrees with /sections: an owner\'s share is the section\'s share times the share of the section', async () => {
    const sections = (await get(api.baseUrl, `/properties/NO/${PROPERTY}/sections`, reader.token)).body.items as {
      share: { numerator: number; denominator: number };
      owners: { person: { birthYear: number }; share: { numerator: number; denominator: number } }[];
    }[];
    const owners = (await get(api.baseUrl, `/properties/NO/${PROPERTY}/owners`, reader.token)).body.items as { person: { birthYear: number }; share: { numerator: number; denominator: number } }[];
    const whole = new Map(owners.map((o) => [o.person.birthYear, fraction(o.share)]));
    for (const section of sections) {
      for (const holder of section.owners) expect(whole.get(holder.person.birthYear)).toBeCloseTo(fraction(section.share) * fraction(holder.share), 12);
    }
  });

  it('says which section each holding is of, with the holder\'s share of that section', async () => {
    const owners = (await get(api.baseUrl, `/properties/NO/${PROPERTY}/owners`, reader.token)).body.items as { section: unknown }[];
    const expected = SECTIONS.flatMap(([number, , holders]) =>
      holders.map(([numerator, denominator]) => ({ sectionNumber: number, cadastreId: PROPERTY.replace(/-0$/, `-${number}`), share: { numerator, denominator } })),
    );
    expect(owners.map((o) => o.section)).toEqual(expected);
  });

  it('keeps the shares of an unsectioned property as registered, with no section', async () => {
    const response = await get(api.baseUrl, '/properties/NO/0301-9001-2-0-0/owners', reader.token);
    expect(response.body.items.map((o: { share: unknown }) => o.share)).toEqual([{ numerator: 1, denominator: 2 }, { numerator: 1, denominator: 2 }]);
    expect(response.body.items.map((o: { section?: unknown }) => o.section)).toEqual([undefined, undefined]);
  });

  it('every response matches the served OpenAPI description', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
