import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { RunSummary } from '../../activities/types.js';
import { generateSample } from '../../sample/generate.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runRefresh } from '../support/runs.js';
import { call, clientWithToken, get, startApiServer, type ApiResponse, type ApiServer, type TestClient } from './support/api-server.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * The integrator's check of issue 22, on a store loaded as the demo loads it: the generated
 * sample (both countries, small), every source published and every dataset derived by the real
 * nightly refresh. Like the integrator, the test finds properties through /coordinates and the
 * address search, walks every per-property operation, the bulk lookup and the company and area
 * operations, validates every response against the served /openapi.yaml with an independent
 * validator, and checks that the observations are gone.
 */
const PARCELS = 300;
const SEED = 'demo-conformance';
const SUB_RESOURCES = [
  'sections', 'buildings', 'units', 'owners', 'tenants', 'transactions', 'comparable-transactions', 'energy-certificates',
  'certifications', 'zoning-plans', 'building-permits',
];
/** Computed by the nightly derive step per property: 404 with its own code where it has nothing. */
const DERIVED = ['valuations', 'utilization'];

let pipeline: TestPipeline;
let nightly: RunSummary;
let server: ApiServer;
let db: pg.Pool;
let reader: TestClient;

interface Walked {
  country: string;
  cadastreId: string;
  /** How the integrator came to it. */
  via: string;
  responses: Map<string, ApiResponse>;
}
const walked: Walked[] = [];
/** The starting points' kinds, by the property each should lead to. */
const kindOf = new Map<string, string>();
const companyResponses = new Map<string, ApiResponse>();

beforeAll(async () => {
  pipeline = await startPipeline();
  const sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  nightly = await runRefresh(pipeline.client, pipeline.taskQueue);
  db = pipeline.pool;
  server = await startApiServer(db);
  reader = await clientWithToken(db, server.baseUrl, { scopes: ['properties.read', 'companies.read', 'owners.read', 'areas.read', 'subscriptions.write'], burstLimit: 1_000_000 });
  await walk();
}, 300_000);
afterAll(async () => {
  delete process.env.NORDPROP_INPUT_DIR;
  await server?.close();
  await pipeline?.stop();
});

const api = (pathAndQuery: string) => get(server.baseUrl, pathAndQuery, reader.token);
const propertyPath = (country: string, cadastreId: string) => `/properties/${country}/${encodeURIComponent(cadastreId)}`;

/**
 * What an integrator starts from: places and addresses. The store picks them so that each kind
 * the issue names is among them (a sectioned Norwegian property, a unit with a certificate, a
 * Swedish property inside an adopted plan, one owned by a company, samfälligheter), plus a few
 * ordinary ones; the API alone is then asked about them.
 */
async function startingPoints(): Promise<{ country: string; lat: number; lon: number; text: string | null; expected: string; kind: string }[]> {
  const addressOf = (kind: string, country: string, where: string) => `
    (SELECT * FROM (
       SELECT DISTINCT ON (a.cadastre_id) '${kind}' AS kind, a.country, ST_Y(a.geom) AS lat, ST_X(a.geom) AS lon, a.address_text AS text, a.cadastre_id AS expected
       FROM address a WHERE a.country = '${country}' AND a.address_text IS NOT NULL AND ${where}
       ORDER BY a.cadastre_id, a.address_id) first_address
     ORDER BY expected LIMIT 2)`;
  const parcelOf = (kind: string, where: string) => `
    (SELECT '${kind}' AS kind, 'SE' AS country, ST_Y(ST_PointOnSurface(p.geom)) AS lat, ST_X(ST_PointOnSurface(p.geom)) AS lon, NULL AS text, pp.cadastre_id AS expected
     FROM parcel p JOIN parcel_property pp USING (country, parcel_id) WHERE p.country = 'SE' AND ${where}
     ORDER BY pp.cadastre_id LIMIT 2)`;
  const result = await db.query(
    [
      addressOf('ordinary', 'NO', 'true'),
      addressOf('sectioned', 'NO', `EXISTS (SELECT 1 FROM section s WHERE s.country = 'NO' AND s.property_cadastre_id = a.cadastre_id)`),
      addressOf('unit with a certificate', 'NO', `EXISTS (SELECT 1 FROM energy_certificate e WHERE e.country = 'NO' AND e.unit_number IS NOT NULL AND e.valid_to_date >= current_date
                 AND e.cadastre_id IN (SELECT a.cadastre_id UNION ALL SELECT s.cadastre_id FROM section s WHERE s.country = 'NO' AND s.property_cadastre_id = a.cadastre_id))`),
      addressOf('company tenant', 'NO', `EXISTS (SELECT 1 FROM tenant t WHERE t.country = 'NO' AND t.cadastre_id = a.cadastre_id)`),
      addressOf('ordinary', 'SE', 'true'),
      addressOf('owned by a company', 'SE', `EXISTS (SELECT 1 FROM owner o WHERE o.country = 'SE' AND o.cadastre_id = a.cadastre_id AND o.org_id IS NOT NULL)`),
      addressOf('inside an adopted plan', 'SE', `EXISTS (SELECT 1 FROM utilization u WHERE u.country = 'SE' AND u.cadastre_id = a.cadastre_id)`),
      addressOf('energy declaration', 'SE', `EXISTS (SELECT 1 FROM energy_certificate e WHERE e.country = 'SE' AND a.cadastre_id = ANY (e.cadastre_ids))`),
      // Named second by a declaration of two properties, and first by none.
      addressOf('second property of a declaration', 'SE', `EXISTS (SELECT 1 FROM energy_certificate e WHERE e.country = 'SE' AND e.cadastre_ids[2] = a.cadastre_id)
                 AND NOT EXISTS (SELECT 1 FROM energy_certificate e WHERE e.country = 'SE' AND e.cadastre_id = a.cadastre_id)`),
      parcelOf('samfällighet', `pp.cadastre_id ~ '_S_[0-9]+$'`),
      parcelOf('gemensamhetsanläggning', `pp.cadastre_id ~ '_GA_[0-9]+$'`),
    ].join(' UNION ALL '),
  );
  return result.rows;
}

async function walk(): Promise<void> {
  const seen = new Set<string>();
  for (const point of await startingPoints()) {
    kindOf.set(`${point.country}/${point.expected}`, point.kind);
    const lat = Number(point.lat.toFixed(7));
    const lon = Number(point.lon.toFixed(7));
    const found: { cadastreId: string; via: string }[] = [];
    const resolved = await api(`/coordinates/${point.country}/${lat}/${lon}`);
    if (resolved.body?.property) found.push({ cadastreId: resolved.body.property.cadastreId, via: `${point.kind}: /coordinates/${point.country}/${lat}/${lon}` });
    if (point.text) {
      const searched = await api(`/addresses/${point.country}/${encodeURIComponent(point.text)}`);
      const hit = (searched.body?.items ?? []).find((a: { text: string; cadastreId?: string }) => a.text === point.text && a.cadastreId);
      if (hit) found.push({ cadastreId: hit.cadastreId, via: `${point.kind}: search "${point.text}"` });
    }
    expect(found.map((f) => f.cadastreId), `${point.kind} ${point.country} ${point.expected}`).toContain(point.expected);
    for (const { cadastreId, via } of found) {
      const key = `${point.country}/${cadastreId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      walked.push(await walkProperty(point.country, cadastreId, via));
    }
  }
  // Every organisation an owner list or tenant list names: the company's properties.
  for (const property of walked) {
    for (const sub of ['owners', 'tenants']) {
      for (const item of property.responses.get(sub)?.body?.items ?? []) {
        const id = item.organization?.organizationIdentifier;
        if (!id || companyResponses.has(`${id.scheme}/${id.id}`)) continue;
        companyResponses.set(`${id.scheme}/${id.id}`, await api(`/companies/${id.scheme}/${encodeURIComponent(id.id)}/properties`));
      }
    }
  }
}

async function walkProperty(country: string, cadastreId: string, via: string): Promise<Walked> {
  const base = propertyPath(country, cadastreId);
  const responses = new Map<string, ApiResponse>();
  const property = await api(base);
  responses.set('property', property);
  for (const link of property.body?.links ?? []) await api(new URL(link.href).pathname);
  for (const sub of [...SUB_RESOURCES, ...DERIVED]) responses.set(sub, await api(`${base}/${sub}`));
  return { country, cadastreId, via, responses };
}

const ofCountry = (country: string) => walked.filter((w) => w.country === country);
const items = (w: Walked, sub: string): any[] => w.responses.get(sub)?.body?.items ?? [];
const fraction = (share: { numerator: number; denominator: number }) => share.numerator / share.denominator;

describe('the integrator\'s walk over the demo store (issue 22)', () => {
  it('loads the whole sample in one nightly refresh, every source and derived dataset', () => {
    expect(nightly.outcome).toBe('succeeded');
    expect(nightly.derived?.outcome).toBe('succeeded');
    expect(nightly.sources.map((s) => s.sourceId)).toEqual(expect.arrayContaining(['no-cadastre', 'se-cadastre', 'se-zoning', 'se-transactions', 'se-business', 'no-energy']));
  });

  it('reaches properties of both countries, samfälligheter and gemensamhetsanläggningar among them, via /coordinates and the address search', () => {
    expect(ofCountry('NO').length).toBeGreaterThanOrEqual(4);
    expect(ofCountry('SE').length).toBeGreaterThanOrEqual(6);
    expect(walked.some((w) => /_S_\d+$/.test(w.cadastreId))).toBe(true);
    expect(walked.some((w) => /_GA_\d+$/.test(w.cadastreId))).toBe(true);
  });

  it('answers every per-property operation for every id it handed out: 200, or 404 with its own code for what is not derived', () => {
    for (const w of walked) {
      for (const [operation, response] of w.responses) {
        const where = `${w.via} → ${operation}`;
        if (DERIVED.includes(operation) && response.status === 404) expect(response.body.code, where).toMatch(/_NOT_FOUND$/);
        else expect(response.status, where).toBe(200);
      }
    }
  });

  it('finds every walked property in the bulk lookup', async () => {
    for (const country of ['NO', 'SE']) {
      const ids = ofCountry(country).map((w) => w.cadastreId);
      const lookup = await call(server.baseUrl, 'POST', `/properties/${country}/lookups`, { token: reader.token, body: { cadastreIds: ids }, headers: { 'idempotency-key': randomUUID() } });
      expect(lookup.status).toBe(200);
      expect(lookup.body.notFound).toEqual([]);
      expect(lookup.body.items.map((p: { cadastreId: string }) => p.cadastreId).sort()).toEqual([...ids].sort());
    }
  });

  it('takes a subscription to every walked Swedish property, samfälligheter included', async () => {
    for (const w of ofCountry('SE')) {
      const created = await call(server.baseUrl, 'POST', '/subscriptions', {
        token: reader.token,
        headers: { 'idempotency-key': randomUUID() },
        body: {
          target: { kind: 'PROPERTY', country: 'SE', cadastreId: w.cadastreId },
          events: ['OWNER_CHANGED'],
          webhookUrl: 'https://hooks.example.org/nordprop',
          secret: 'whsec_4f8a1c9e2b7d6f0a3e5c8b1d9f2a7e4c',
        },
      });
      expect(created.status, w.via).toBe(201);
    }
  });

  it('gives each property\'s owners shares of the whole that add up to at most 1', () => {
    let withOwners = 0;
    for (const w of walked) {
      const owners = items(w, 'owners');
      if (owners.length) withOwners += 1;
      const total = owners.reduce((sum, o) => sum + fraction(o.share), 0);
      expect(total, `${w.via}: ${owners.length} owners`).toBeLessThanOrEqual(1 + 1e-9);
    }
    expect(withOwners).toBeGreaterThan(0);
  });

  it('computes Swedish utilization and lists Swedish zoning plans', () => {
    const sweden = ofCountry('SE');
    expect(sweden.some((w) => w.responses.get('utilization')!.status === 200)).toBe(true);
    expect(sweden.some((w) => items(w, 'zoning-plans').length > 0)).toBe(true);
  });

  it('lists a Swedish energy declaration under every property it covers, not only the first', () => {
    const second = ofCountry('SE').filter((w) => kindOf.get(`SE/${w.cadastreId}`) === 'second property of a declaration');
    expect(second.length).toBeGreaterThan(0);
    for (const w of second) expect(items(w, 'energy-certificates').length, w.via).toBeGreaterThan(0);
  });

  it('lists a Swedish company\'s properties, and the company as an owning tenant there', () => {
    const swedish = [...companyResponses].filter(([key]) => key.startsWith('0007/'));
    expect(swedish.length).toBeGreaterThan(0);
    for (const [key, response] of companyResponses) expect(response.status, key).toBe(200);
    const owning = swedish.filter(([, response]) => response.body.items.length > 0);
    expect(owning.length).toBeGreaterThan(0);
    // The company's list names the property the walk found it owning.
    for (const [key, response] of owning) {
      const properties = response.body.items.map((p: { cadastreId: string }) => p.cadastreId);
      const owned = ofCountry('SE').filter((w) => items(w, 'owners').some((o) => `${o.organization?.organizationIdentifier.scheme}/${o.organization?.organizationIdentifier.id}` === key));
      for (const w of owned) expect(properties, key).toContain(w.cadastreId);
    }
    expect(ofCountry('SE').some((w) => items(w, 'tenants').some((t) => t.isOwner === true))).toBe(true);
  });

  it('gives Norwegian units the energy label of their certificate', () => {
    expect(ofCountry('NO').some((w) => items(w, 'units').some((u) => /^[A-G]$/.test(u.energyLabel ?? '')))).toBe(true);
  });

  it('answers the area operations for the municipalities and postal codes walked', async () => {
    const areas = new Set<string>();
    for (const w of walked) {
      const property = w.responses.get('property')!.body;
      areas.add(`${w.country}/${property.municipality.code}`);
      for (const address of property.addresses ?? []) if (address.postalCode) areas.add(`${w.country}/postal-code:${address.postalCode}`);
    }
    for (const area of areas) {
      const [country, areaId] = area.split('/');
      const response = await api(`/areas/${country}/${encodeURIComponent(areaId)}/land-allocations`);
      expect(response.status, area).toBe(200);
    }
  });

  it('rounds every location to 7 decimals and writes a register date as a date, not as local midnight in UTC', () => {
    const decimals = (value: number) => (String(value).split('.')[1] ?? '').length;
    const problems: string[] = [];
    let dates = 0;
    const visit = (value: unknown, where: string): void => {
      if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${where}[${i}]`));
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key === 'location' && inner && typeof inner === 'object') {
            const { lat, lon } = inner as { lat: number; lon: number };
            if (decimals(lat) > 7 || decimals(lon) > 7) problems.push(`${where}.location ${JSON.stringify(inner)}`);
          }
          if (key === 'registeredAt' && typeof inner === 'string') {
            dates += 1;
            if (!/^\d{4}-\d{2}-\d{2}$/.test(inner) && /T2[23]:00:00(\.0+)?Z$/.test(inner)) problems.push(`${where}.registeredAt ${inner}`);
          }
          visit(inner, `${where}.${key}`);
        }
      }
    };
    for (const response of loggedResponses()) visit(response.body, `${response.method} ${response.path}`);
    expect(dates).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('never answers 500, and every response matches the served OpenAPI description', async () => {
    const responses = loggedResponses();
    expect(responses.length).toBeGreaterThan(100);
    expect(responses.filter((r) => r.status >= 500).map((r) => `${r.method} ${r.path} → ${r.status}`)).toEqual([]);
    const { document } = await fetchOpenApi(server.baseUrl);
    expect(await validateResponses(document, responses)).toEqual([]);
  });
});
