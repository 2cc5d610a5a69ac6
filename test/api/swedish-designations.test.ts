import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { planSwedishSample, propertiesOfSwedishPlan, type SeSampleProperty } from '../../sample/se/properties.js';
import { writeSeCadastreGpkg } from '../../sample/se/write-geopackages.js';
import { transformTo } from '../../sources/geo/reproject.js';
import { NO_CADASTRE_ID_PATTERN } from '../../api/cadastre-id.js';
import { SE_CADASTRE_ID_PATTERN, typeOfBlock, UNIT_CODES } from '../../sources/se/cadastre-id.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runRefresh } from '../support/runs.js';
import { call, clientWithToken, get, startApiServer, type ApiServer, type TestClient } from './support/api-server.js';
import { fetchOpenApi, validateResponses } from './support/openapi-check.js';
import { loggedResponses } from './support/response-log.js';

/**
 * Every designation form of the Swedish sample, published through the real se-cadastre source:
 * the id the coordinate lookup hands out for a samfällighet or a gemensamhetsanläggning is one
 * the property routes, the bulk lookup and subscriptions take.
 */
const PARCELS = 600;
const SEED = 'designations';
let pipeline: TestPipeline;
let server: ApiServer;
let db: pg.Pool;
let reader: TestClient;
let subscriber: TestClient;
let truth: SeSampleProperty[];

beforeAll(async () => {
  pipeline = await startPipeline();
  const inputDir = path.join(pipeline.dataDir, 'sample');
  await mkdir(inputDir, { recursive: true });
  process.env.NORDPROP_INPUT_DIR = inputDir;
  writeSeCadastreGpkg({ path: path.join(inputDir, 'fastighetsindelning_sverige.gpkg'), seed: SEED, parcels: PARCELS, plan: undefined as never });
  const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['se-cadastre'] });
  if (summary.outcome !== 'succeeded') throw new Error(`se-cadastre refresh ${summary.outcome}`);
  truth = [...propertiesOfSwedishPlan(planSwedishSample(PARCELS, SEED))];
  db = pipeline.pool;
  server = await startApiServer(db);
  reader = await clientWithToken(db, server.baseUrl, { scopes: ['properties.read'], burstLimit: 100_000 });
  subscriber = await clientWithToken(db, server.baseUrl, { scopes: ['subscriptions.write'], burstLimit: 100_000 });
}, 240_000);
afterAll(async () => {
  await server?.close();
  await pipeline?.stop();
});

const ofKind = (kind: SeSampleProperty['kind']) => truth.filter((p) => p.kind === kind);
const toWgs84 = transformTo(3006);
/** A WGS84 point inside the property's first area (a rectangle): the mean of its corners. */
function inside(property: SeSampleProperty): { lat: number; lon: number } {
  const corners = property.areas[0].exterior.slice(0, -1);
  const east = corners.reduce((sum, [x]) => sum + x, 0) / corners.length;
  const north = corners.reduce((sum, [, y]) => sum + y, 0) / corners.length;
  const [lon, lat] = toWgs84(east, north);
  return { lat: Number(lat.toFixed(7)), lon: Number(lon.toFixed(7)) };
}

describe('Swedish designations of every form through the API', () => {
  it('the sample holds samfälligheter, gemensamhetsanläggningar, kvarter and ordinary fastigheter', () => {
    expect(ofKind('samfallighet').length).toBeGreaterThan(0);
    expect(ofKind('gemensamhetsanlaggning').length).toBeGreaterThan(0);
    expect(ofKind('kvarter').length).toBeGreaterThan(0);
    expect(ofKind('fastighet').length).toBeGreaterThan(0);
  });

  it.each([
    ['samfallighet', /_S_\d+$/, 'SAMFÄLLIGHET'],
    ['gemensamhetsanlaggning', /_GA_\d+$/, 'GEMENSAMHETSANLÄGGNING'],
  ] as const)('the id the coordinate lookup gives for a %s answers 200 on every property route, with its type', async (kind, shape, propertyType) => {
    const unit = ofKind(kind)[0];
    const { lat, lon } = inside(unit);
    const resolved = await get(server.baseUrl, `/coordinates/SE/${lat}/${lon}`, reader.token);
    expect(resolved.status).toBe(200);
    expect(resolved.body.property.cadastreId).toBe(unit.cadastreId);
    expect(unit.cadastreId).toMatch(shape);

    const base = `/properties/SE/${encodeURIComponent(unit.cadastreId)}`;
    const property = await get(server.baseUrl, base, reader.token);
    expect(property.status).toBe(200);
    expect(property.body).toMatchObject({ country: 'SE', cadastreId: unit.cadastreId, propertyType, municipality: { code: unit.kommunkod } });
    for (const link of property.body.links) expect((await get(server.baseUrl, new URL(link.href).pathname, reader.token)).status).toBe(200);
    for (const sub of ['sections', 'buildings', 'units', 'owners', 'tenants', 'transactions', 'comparable-transactions', 'energy-certificates', 'certifications', 'zoning-plans', 'building-permits']) {
      const response = await get(server.baseUrl, `${base}/${sub}`, reader.token);
      expect(response.status, sub).toBe(200);
    }
    // Derived per property: not yet computed is 404 with its own code, never a refused id.
    for (const sub of ['valuations', 'utilization']) {
      const response = await get(server.baseUrl, `${base}/${sub}`, reader.token);
      expect([200, 404], sub).toContain(response.status);
      if (response.status === 404) expect(response.body.code).not.toBe('VALIDATION_FAILED');
    }
    // The lower-case form the register also writes (`s:12`, `ga:1`) is the same property.
    expect((await get(server.baseUrl, base.toLowerCase().replace('/properties/se/', '/properties/SE/'), reader.token)).body.cadastreId).toBe(unit.cadastreId);
  });

  it('every sample property of every form is found by the bulk lookup, with the type its designation implies', async () => {
    const ids = [ofKind('samfallighet'), ofKind('gemensamhetsanlaggning'), ofKind('kvarter'), ofKind('fastighet')].flatMap((list) => list.slice(0, 30).map((p) => p.cadastreId));
    const lookup = await call(server.baseUrl, 'POST', '/properties/SE/lookups', { token: reader.token, body: { cadastreIds: ids }, headers: { 'idempotency-key': randomUUID() } });
    expect(lookup.status).toBe(200);
    expect(lookup.body.notFound).toEqual([]);
    expect(lookup.body.items.map((p: { cadastreId: string }) => p.cadastreId).sort()).toEqual([...ids].sort());
    const byId = new Map(truth.map((p) => [p.cadastreId, p]));
    for (const item of lookup.body.items as { cadastreId: string; propertyType: string }[]) {
      expect(item.propertyType, item.cadastreId).toBe(typeOfBlock(byId.get(item.cadastreId)!.block));
    }
  });

  it('a samfällighet can be subscribed to', async () => {
    const samfallighet = ofKind('samfallighet')[1] ?? ofKind('samfallighet')[0];
    const created = await call(server.baseUrl, 'POST', '/subscriptions', {
      token: subscriber.token,
      headers: { 'idempotency-key': randomUUID() },
      body: {
        target: { kind: 'PROPERTY', country: 'SE', cadastreId: samfallighet.cadastreId.toLowerCase() },
        events: ['OWNER_CHANGED'],
        webhookUrl: 'https://hooks.example.org/nordprop',
        secret: 'whsec_4f8a1c9e2b7d6f0a3e5c8b1d9f2a7e4c',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.target).toEqual({ kind: 'PROPERTY', country: 'SE', cadastreId: samfallighet.cadastreId });
  });

  it('property_type() classifies each Swedish form by its id, as the cadastre source does', async () => {
    const ids = ['0180_KUNGSHOLMEN_1_2', '2480_TOLVMANSGÅRDEN_4', '0114_FACKLAN_S_12', '0882_BERGA_GA_1', '2584_TORNEÄLVEN_FA_1', '0180_S_4', '0180_GA_1_2', '0301-84-35-0-0', '0301-84-35-0-3', '0301-84-35-2-0'];
    const { rows } = await db.query(`SELECT id, property_type(id) AS type FROM unnest($1::text[]) id`, [ids]);
    expect(Object.fromEntries(rows.map((r) => [r.id, r.type]))).toEqual({
      '0180_KUNGSHOLMEN_1_2': 'FASTIGHET',
      '2480_TOLVMANSGÅRDEN_4': 'FASTIGHET',
      '0114_FACKLAN_S_12': 'SAMFÄLLIGHET',
      '0882_BERGA_GA_1': 'GEMENSAMHETSANLÄGGNING',
      '2584_TORNEÄLVEN_FA_1': 'FISKEOMRÅDE',
      // A kvarter named like a code has three segments: no block slot.
      '0180_S_4': 'FASTIGHET',
      '0180_GA_1_2': 'FASTIGHET',
      '0301-84-35-0-0': 'GRUNNEIENDOM',
      '0301-84-35-0-3': 'EIERSEKSJON',
      '0301-84-35-2-0': 'FESTEGRUNN',
    });
  });

  it('the served OpenAPI description states both countries\' id patterns and every property type', async () => {
    const { document } = await fetchOpenApi(server.baseUrl);
    const operation = document.paths['/properties/{country}/{cadastreId}'].get as unknown as { parameters: { name: string; description: string }[] };
    const description = operation.parameters.find((p) => p.name === 'cadastreId')!.description;
    expect(description).toContain(NO_CADASTRE_ID_PATTERN);
    expect(description).toContain(SE_CADASTRE_ID_PATTERN);
    const schemas = (document as unknown as { components: { schemas: Record<string, { properties: Record<string, { enum: string[] }> }> } }).components.schemas;
    for (const schema of ['Property', 'CompanyProperty']) {
      expect(schemas[schema].properties.propertyType.enum).toEqual(expect.arrayContaining(['FASTIGHET', 'GRUNNEIENDOM', 'EIERSEKSJON', 'FESTEGRUNN', ...Object.values(UNIT_CODES)]));
    }
  });

  it('every response matches the served OpenAPI description', async () => {
    const { document } = await fetchOpenApi(server.baseUrl);
    expect(await validateResponses(document, loggedResponses())).toEqual([]);
  });
});
