import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transformTo } from '../../sources/geo/reproject.js';
import type { SampleAddress, SampleParcel } from '../../sample/generate.js';
import { clientWithToken, get, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

// The sample registers published through the real nightly refresh, plus the register fixtures.
const PARCELS = 300;
let api: ApiTest;
let client: TestClient;
const toWgs84 = transformTo(25833);

beforeAll(async () => {
  api = await startApiTest({ pipeline: { parcels: PARCELS, seed: 'api-addresses' } });
  client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
});
afterAll(async () => {
  await api?.stop();
});

const search = (country: string, text: string) => get(api.baseUrl, `/addresses/${country}/${encodeURIComponent(text)}`, client.token);
const texts = (body: { items: { text: string }[] }) => body.items.map((a) => a.text);
const cadastreIdOf = (a: SampleAddress) => `${a.kommunenummer}-${a.gardsnummer}-${a.bruksnummer}-${a.festenummer ?? 0}-0`;

function streetAddresses(): { parcel: SampleParcel; address: SampleAddress }[] {
  return api.sample.flatMap((parcel) => parcel.addresses.filter((a) => a.adressetype === 'vegadresse' && a.adressenavn).map((address) => ({ parcel, address })));
}

describe('GET /addresses/{country}/{address}', () => {
  it('finds a sample address by its exact text, best match first, with its property and location', async () => {
    const { address } = streetAddresses()[7];
    const response = await search('NO', `${address.adresseTekst}, ${address.postnummer} ${address.poststed}`);
    expect(response.status).toBe(200);
    const [best] = response.body.items;
    const [lon, lat] = toWgs84(address.east, address.north);
    expect(best).toMatchObject({
      text: address.adresseTekst,
      streetName: address.adressenavn,
      houseNumber: `${address.nummer}${address.bokstav ?? ''}`,
      postalCode: address.postnummer,
      postalPlace: address.poststed,
      country: 'NO',
      cadastreId: cadastreIdOf(address),
    });
    expect(best.location.lat).toBeCloseTo(lat, 6);
    expect(best.location.lon).toBeCloseTo(lon, 6);
  });

  it('returns several matches for a partial address, all on that street', async () => {
    const byStreet = new Map<string, SampleAddress[]>();
    for (const { address } of streetAddresses()) byStreet.set(`${address.kommunenummer} ${address.adressenavn}`, [...(byStreet.get(`${address.kommunenummer} ${address.adressenavn}`) ?? []), address]);
    const [, addresses] = [...byStreet].find(([, list]) => list.length >= 3)!;
    const street = addresses[0].adressenavn!;
    const response = await search('NO', street);
    expect(response.body.items.length).toBeGreaterThanOrEqual(3);
    expect(response.body.items.slice(0, 3).every((a: { streetName: string }) => a.streetName === street)).toBe(true);
    // A house number narrows it to that address first.
    const target = addresses[1];
    expect(texts((await search('NO', `${street} ${target.nummer}${target.bokstav ?? ''}`)).body)[0]).toBe(target.adresseTekst);
  });

  it('ignores case and diacritics and reads gt., vn. and v. as the street endings', async () => {
    const candidates = streetAddresses().map((s) => s.address);
    const gata = candidates.find((a) => /gata$/.test(a.adressenavn!));
    const veien = candidates.find((a) => /(veien|vegen)$/.test(a.adressenavn!));
    const withLetter = candidates.find((a) => /[æøå]/i.test(a.adressenavn!));
    const ascii = (s: string) => s.replace(/æ/g, 'ae').replace(/Æ/g, 'AE').replace(/ø/g, 'o').replace(/Ø/g, 'O').replace(/å/g, 'a').replace(/Å/g, 'A');
    // The sample's streets where it has them, the fixture's (Fjordgata 12, Tærnveien 3) in any case.
    const cases: [string, string][] = [
      ['FJORDGATA 12', 'Fjordgata 12'],
      ['Fjordgt. 12', 'Fjordgata 12'],
      ['fjordgate 12b', 'Fjordgata 12B'],
      ['Tærnvn. 3', 'Tærnveien 3'],
      ['Tærnv. 3', 'Tærnveien 3'],
      ['Taernveien 3', 'Tærnveien 3'],
      ['taernvegen 3, 0151 Oslo', 'Tærnveien 3'],
    ];
    if (gata) cases.push([gata.adresseTekst.toUpperCase(), gata.adresseTekst], [gata.adresseTekst.replace(/gata /, 'gt. '), gata.adresseTekst]);
    if (veien) cases.push([veien.adresseTekst.replace(/(veien|vegen) /, 'vn. '), veien.adresseTekst], [veien.adresseTekst.replace(/(veien|vegen) /, 'v. '), veien.adresseTekst]);
    if (withLetter) cases.push([ascii(withLetter.adresseTekst).toLowerCase(), withLetter.adresseTekst]);
    for (const [query, expected] of cases) expect(texts((await search('NO', query)).body)[0], query).toBe(expected);
  });

  it('resolves Swedish spellings: vägen as v., ö as o', async () => {
    expect(texts((await search('SE', 'Sankt Eriksv. 3')).body)).toEqual(['Sankt Eriksvägen 3']);
    expect(texts((await search('SE', 'ostermalmsgatan 5')).body)).toEqual(['Östermalmsgatan 5']);
    expect(texts((await search('SE', 'HANTVERKARGATAN 12A')).body)).toEqual(['Hantverkargatan 12A']);
    const all = await search('SE', '112 21 Stockholm');
    expect(all.body.items).toHaveLength(3);
    expect(all.body.items[0]).toMatchObject({ country: 'SE', cadastreId: '0180_KUNGSHOLMEN_1_2', postalCode: '11221' });
    // A Swedish text is not found in Norway.
    expect((await search('NO', 'Östermalmsgatan 5')).body).toEqual({ items: [] });
  });

  it('400 for a text under 3 or over 200 characters; 200 with no items for no match', async () => {
    expect((await search('NO', 'ab')).status).toBe(400);
    expect((await search('NO', 'x'.repeat(201))).status).toBe(400);
    expect((await search('NO', 'x'.repeat(200))).body).toEqual({ items: [] });
    expect((await search('NO', '%_\\\'";--')).body).toEqual({ items: [] });
    expect((await search('FI', 'Storgata 1')).status).toBe(404);
  });
});

describe('GET /coordinates/{country}/{lat}/{lon}', () => {
  it('resolves sample address points to their property, with its addresses', async () => {
    const sampled = streetAddresses().filter(({ parcel }) => parcel.kind === 'plain').filter((_, i) => i % 40 === 0);
    expect(sampled.length).toBeGreaterThan(3);
    for (const { address } of sampled) {
      const [lon, lat] = toWgs84(address.east, address.north);
      const response = await get(api.baseUrl, `/coordinates/NO/${lat}/${lon}`, client.token);
      expect(response.status).toBe(200);
      expect(response.body.property).toMatchObject({
        country: 'NO',
        cadastreId: cadastreIdOf(address),
        municipality: { code: address.kommunenummer, name: expect.any(String) },
        propertyType: 'GRUNNEIENDOM',
        plotCount: expect.any(Number),
        links: expect.arrayContaining([{ href: `${api.baseUrl}/properties/NO/${cadastreIdOf(address)}/buildings`, title: 'Buildings' }]),
      });
      expect(response.body.addresses.map((a: { text: string }) => a.text)).toContain(address.adresseTekst);
      expect(response.body.buildings).toEqual([]);
    }
  });

  it('describes the property as GET /properties does, to the last digit of its location', async () => {
    // Both are rendered by PostgreSQL now (api_location); the coordinate answer was rounded in the
    // process before, and gave 60.3609213 where GET /properties gave 60.3609214 for a centre of
    // 60.36092135 (a quarter of the demo store's properties).
    const sampled = streetAddresses().filter(({ parcel }) => parcel.kind === 'plain').filter((_, i) => i % 5 === 0);
    expect(sampled.length).toBeGreaterThan(10);
    // A client of its own: two calls per address would pass the shared client's burst limit.
    const reader = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'], burstLimit: 10_000 });
    const byText = (a: { text: string }, b: { text: string }) => a.text.localeCompare(b.text);
    for (const { address } of sampled) {
      const [lon, lat] = toWgs84(address.east, address.north);
      const { body } = await get(api.baseUrl, `/coordinates/NO/${lat}/${lon}`, reader.token);
      const property = (await get(api.baseUrl, `/properties/NO/${body.property.cadastreId}`, reader.token)).body;
      for (const field of ['country', 'cadastreId', 'municipality', 'propertyType', 'location', 'links']) {
        expect(body.property[field], `${field} of ${body.property.cadastreId}`).toEqual(property[field]);
      }
      expect([...body.property.addresses].sort(byText)).toEqual([...property.addresses].sort(byText));
      expect(body.addresses).toEqual(body.property.addresses);
    }
  });

  it('carries the buildings of the property (fixture)', async () => {
    const response = await get(api.baseUrl, '/coordinates/NO/58.0005/3.0005', client.token);
    expect(response.body.property.cadastreId).toBe('0301-9001-1-0-0');
    expect(response.body.buildings.map((b: { buildingNumber: string }) => b.buildingNumber)).toEqual(['300100001', '300100002']);
    expect(response.body.buildings[0]).toMatchObject({ buildingType: { code: '142' }, status: 'IN_USE', builtYear: 1962, location: { lat: 58.0004, lon: 3.0006 } });
    const sweden = await get(api.baseUrl, '/coordinates/SE/59.3305/18.0505', client.token);
    expect(sweden.body.property).toMatchObject({ country: 'SE', cadastreId: '0180_KUNGSHOLMEN_1_2', municipality: { code: '0180', name: 'Stockholm' }, propertyType: 'FASTIGHET' });
    expect(sweden.body.addresses).toHaveLength(3);
  });

  it('outside every parcel: 200 without property, with empty arrays', async () => {
    for (const [country, lat, lon] of [['NO', 0, 0], ['NO', -90, 180], ['SE', 59.3305, 10.0], ['NO', 59.3305, 18.0505]] as const) {
      const response = await get(api.baseUrl, `/coordinates/${country}/${lat}/${lon}`, client.token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ buildings: [], addresses: [] });
    }
  });

  it('400 outside the latitude and longitude bounds or for a non-number', async () => {
    for (const [lat, lon] of [['90.0001', '10'], ['-91', '10'], ['59', '180.5'], ['59', '-181'], ['north', '10'], ['59', 'NaN'], ['59', 'Infinity'], ['1e400', '1']]) {
      const response = await get(api.baseUrl, `/coordinates/NO/${lat}/${lon}`, client.token);
      expect(response.status, `${lat} ${lon}`).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('every response of this file matches the served OpenAPI document', async () => {
    const { document } = await fetchOpenApi(api.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
