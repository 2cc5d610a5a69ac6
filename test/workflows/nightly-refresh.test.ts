import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample, sampleParcels, TEIG_GML_ZIP, type SampleParcel } from '../../sample/generate.js';
import { transformTo } from '../../sources/geo/reproject.js';
import { lookupCoordinate } from '../../store/coordinate-lookup.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { liveCount, liveDigest } from '../support/live-snapshot.js';
import { runBackfill, runRefresh, sourceOf } from '../support/runs.js';
import type { RunSummary } from '../../activities/types.js';
import { SOURCES } from '../../sources/registry.js';
import { nightlyRefresh } from '../../workflows/refresh.js';

const PARCELS = 400;
const SEED = 'nightly-test';
let pipeline: TestPipeline;
let truth: SampleParcel[];
let sampleDir: string;
const toWgs84 = transformTo(25833);

beforeAll(async () => {
  pipeline = await startPipeline();
  sampleDir = path.join(pipeline.dataDir, 'sample');
  process.env.NORDPROP_INPUT_DIR = sampleDir;
  await generateSample({ outDir: sampleDir, parcels: PARCELS, seed: SEED });
  truth = [...sampleParcels({ parcels: PARCELS, seed: SEED })];
});
afterAll(async () => {
  await pipeline?.stop();
});

const cadastreIdOf = (a: SampleParcel['addresses'][number]) => `${a.kommunenummer}-${a.gardsnummer}-${a.bruksnummer}-${a.festenummer ?? 0}-0`;

describe('nightly refresh over the sample registers', () => {
  it('publishes every register of the sample, every parcel and address, none rejected', async () => {
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue);
    // Every registered source has a sample file, and every sample record loads.
    expect(summary.sources.map((s) => s.sourceId).sort()).toEqual(SOURCES.map((s) => s.id).sort());
    for (const source of summary.sources) expect([source.sourceId, source.outcome, source.rowsRejected]).toEqual([source.sourceId, 'published', 0]);
    const addresses = truth.reduce((n, p) => n + p.addresses.length, 0);
    // A teig of sections belongs to the whole property too (…-0), so both are properties.
    const unitsPerParcel = truth.map((p) => new Set(p.units.flatMap((u) => (u.seksjonsnummer ? [u.cadastreId, u.cadastreId.replace(/-\d+$/, '-0')] : [u.cadastreId]))));
    const units = new Set(unitsPerParcel.flatMap((set) => [...set]));
    expect(summary.outcome).toBe('succeeded');
    expect(sourceOf(summary, 'no-cadastre')).toMatchObject({ outcome: 'published', rowsRead: PARCELS, rowsStaged: PARCELS, rowsRejected: 0, rowsRepaired: 0, inserted: PARCELS });
    expect(sourceOf(summary, 'no-address')).toMatchObject({ outcome: 'published', rowsRead: addresses, rowsRejected: 0, inserted: addresses });
    expect(await liveCount(pipeline.pool, 'property', 'NO')).toBe(units.size);
    expect(await liveCount(pipeline.pool, 'parcel_property', 'NO')).toBe(unitsPerParcel.reduce((n, set) => n + set.size, 0));
    // The first load built the secondary indexes after inserting; they are all back, and valid.
    const indexes = await pipeline.pool.query(
      `SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid IN ('parcel'::regclass, 'parcel_property'::regclass, 'address'::regclass) ORDER BY 1`,
    );
    expect(indexes.rows.filter((r) => !r.indisvalid)).toEqual([]);
    expect(indexes.rows.map((r) => r.relname)).toEqual(expect.arrayContaining(['address_cadastre_idx', 'address_pkey', 'parcel_geom_idx', 'parcel_pkey', 'parcel_property_cadastre_idx', 'parcel_property_pkey']));
    // The derived datasets after the sources, in the order the workflow chose (workflows/derive-order.ts):
    // whatever it started first, a country's valuations began only once its comparables had ended.
    const derived = await pipeline.pool.query<{ source_id: string; outcome: string; started_at: Date; finished_at: Date | null }>(
      `SELECT source_id, outcome, started_at, finished_at FROM source_run WHERE run_id = $1`,
      [`${summary.runId}-derive`],
    );
    const derivedEntry = new Map(derived.rows.map((row) => [row.source_id, row]));
    expect([...derivedEntry.keys()].sort()).toEqual(['no', 'se'].flatMap((c) => ['comparables', 'tenants', 'utilization', 'valuations'].map((d) => `derive-${c}-${d}`)));
    for (const row of derived.rows) expect([row.source_id, row.finished_at]).toEqual([row.source_id, expect.any(Date)]);
    for (const country of ['no', 'se']) {
      const comparables = derivedEntry.get(`derive-${country}-comparables`)!;
      expect(derivedEntry.get(`derive-${country}-valuations`)!.started_at.getTime()).toBeGreaterThanOrEqual(comparables.finished_at!.getTime());
    }
    // Areas are planar in UTM 33, the file's CRS: the generator's own shoelace areas, within 0.05 m².
    const areas = await pipeline.pool.query(`SELECT parcel_id, area_m2, stored_area_m2 FROM parcel WHERE country = 'NO' ORDER BY parcel_id::int LIMIT 50`);
    for (const row of areas.rows) {
      const parcel = truth.find((p) => String(p.teigId) === row.parcel_id)!;
      expect(row.area_m2).toBeCloseTo(parcel.area, 1);
      expect(row.stored_area_m2).toBe(parcel.lagretBeregnetAreal);
    }
  });

  it('resolves every 25th address point to the parcel it was placed in', async () => {
    const sampled = truth.flatMap((p) => p.addresses.map((a) => ({ parcel: p, address: a }))).filter((_, i) => i % 25 === 0);
    expect(sampled.length).toBeGreaterThan(20);
    for (const { parcel, address } of sampled) {
      const [lon, lat] = toWgs84(address.east, address.north);
      const result = await lookupCoordinate(pipeline.pool, 'NO', lat, lon);
      expect(result.parcel?.parcelId).toBe(String(parcel.teigId));
      expect(result.parcel?.cadastreIds).toContain(cadastreIdOf(address));
      expect(result.property?.municipality).toEqual({ code: parcel.kommunenummer, name: expect.any(String) });
      if (parcel.kind === 'plain') {
        expect(result.property?.cadastreId).toBe(cadastreIdOf(address));
        expect(result.addresses.map((a) => a.text)).toContain(address.adresseTekst);
      }
    }
  });

  it('resolves a point on a boundary shared by several parcels to one of them, the same one every time', async () => {
    const parcel = truth.find((p) => p.kind === 'plain' && p.row > 0 && p.col > 0)!;
    const corner = parcel.exterior[0];
    const touching = truth.filter((p) => p.exterior.some(([e, n]) => e === corner[0] && n === corner[1]));
    expect(touching.length).toBeGreaterThan(1);
    // Stored vertices are rounded to 1e-7 degrees; round the same way to hit the shared vertex exactly.
    const [lon, lat] = toWgs84(corner[0], corner[1]).map((v) => Math.round(v * 1e7) / 1e7);
    const answers = new Set<string | undefined>();
    for (let i = 0; i < 5; i++) answers.add((await lookupCoordinate(pipeline.pool, 'NO', lat, lon)).parcel?.parcelId);
    expect(answers.size).toBe(1);
    const smallest = touching.reduce((a, b) => (a.area <= b.area ? a : b));
    expect([...answers][0]).toBe(String(smallest.teigId));
  });

  it('answers a point outside every parcel with no property and no addresses', async () => {
    expect(await lookupCoordinate(pipeline.pool, 'NO', 70.5, 1.5)).toEqual({ addresses: [] });
  });

  it('changes nothing when run again on the same inputs', async () => {
    const before = await liveDigest(pipeline.pool);
    // Started as the schedule starts it: no run id given, so the workflow makes one.
    const summary: RunSummary = await pipeline.client.workflow.execute(nightlyRefresh, { taskQueue: pipeline.taskQueue, workflowId: `nightly-${Date.now()}`, args: [{}] });
    expect(summary).toMatchObject({ kind: 'nightly', outcome: 'succeeded', runId: expect.stringMatching(/^r\d{8}-\d{6}-[0-9a-f]{6}$/) });
    const outcomes = summary.sources.map((s) => [s.sourceId, s.outcome, s.inserted + s.updated + s.deleted]);
    expect(outcomes.sort()).toEqual(SOURCES.map((s) => [s.id, 'unchanged', 0]).sort());
    const forced = await runRefresh(pipeline.client, pipeline.taskQueue, { force: true, sources: ['no-cadastre'] });
    expect(sourceOf(forced, 'no-cadastre')).toMatchObject({ outcome: 'published', rowsStaged: PARCELS, inserted: 0, updated: 0, deleted: 0 });
    expect(await liveDigest(pipeline.pool)).toEqual(before);
  });

  it('computes its derived datasets as many at once as the refresh asks (deriveConcurrency)', async () => {
    // One at a time: no dataset of the run starts before the one before it ended.
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { country: 'NO', sources: ['no-postal-code'], derive: true, force: true, deriveConcurrency: 1 });
    const derived = await pipeline.pool.query<{ source_id: string; started_at: Date; finished_at: Date }>(
      `SELECT source_id, started_at, finished_at FROM source_run WHERE run_id = $1 ORDER BY started_at`,
      [`${summary.runId}-derive`],
    );
    expect(derived.rows.map((row) => row.source_id).sort()).toEqual(['comparables', 'tenants', 'utilization', 'valuations'].map((d) => `derive-no-${d}`));
    for (let i = 1; i < derived.rows.length; i++) {
      expect([derived.rows[i].source_id, derived.rows[i].started_at.getTime() >= derived.rows[i - 1].finished_at.getTime()]).toEqual([derived.rows[i].source_id, true]);
    }
  });

  it('fails validation on a register that lost a third of its parcels, leaving live data byte-identical', async () => {
    const before = await liveDigest(pipeline.pool);
    const smallDir = path.join(pipeline.dataDir, 'smaller');
    await generateSample({ outDir: smallDir, parcels: 250, seed: SEED });
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-cadastre', input: path.join(smallDir, TEIG_GML_ZIP) });
    expect(summary.outcome).toBe('failed');
    expect(sourceOf(summary, 'no-cadastre').error).toMatch(/snapshot has \d+ rows against 400 live/);
    expect(await liveDigest(pipeline.pool)).toEqual(before);
    const staging = await pipeline.pool.query(`SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'staging'`);
    expect(staging.rows[0].n).toBe(0);
  });

  it('repairs a self-intersecting teig and records the repair; quarantines duplicates with their first position', async () => {
    const gml = path.join(pipeline.dataDir, 'Basisdata_0301_Oslo_25833_MatrikkelenEiendomskartTeig_GML.gml');
    const teig = (id: number, ring: string) => `<gml:featureMember><app:Teig gml:id="teig.${id}">
      <app:identifikasjon><app:Identifikasjon><app:lokalId>${id}</app:lokalId></app:Identifikasjon></app:identifikasjon>
      <app:kommunenummer>0301</app:kommunenummer>
      <app:område><gml:Polygon srsName="urn:ogc:def:crs:EPSG::25833"><gml:exterior><gml:LinearRing><gml:posList>${ring}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></app:område>
      <app:matrikkelenhet><app:Matrikkelenhet><app:kommunenummer>0301</app:kommunenummer><app:gardsnummer>900</app:gardsnummer><app:bruksnummer>${id - 9000000}</app:bruksnummer></app:Matrikkelenhet></app:matrikkelenhet>
    </app:Teig></gml:featureMember>`;
    const square = '262000 6650000 262050 6650000 262050 6650050 262000 6650050 262000 6650000';
    const bowtie = '262100 6650000 262150 6650050 262150 6650000 262100 6650050 262100 6650000';
    await writeFile(
      gml,
      `<?xml version="1.0" encoding="UTF-8"?><gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:app="http://skjema.geonorge.no/SOSI/produktspesifikasjon/Matrikkelen-Eiendomskart-Teig/20211101">${teig(9000001, square)}${teig(9000002, bowtie)}${teig(9000001, square)}</gml:FeatureCollection>`,
    );
    const refused = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-cadastre', input: gml });
    expect(sourceOf(refused, 'no-cadastre').error).toMatch(/^1 of 3 rows rejected \(33\.33%\), above the 1\.00% ceiling/);

    process.env.NORDPROP_MAX_REJECT_RATE = '0.5';
    // Forced: two parcels replace all of Oslo's, far past the 10% drop limit.
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-cadastre', input: gml, force: true }).finally(() => {
      delete process.env.NORDPROP_MAX_REJECT_RATE;
    });
    expect(sourceOf(summary, 'no-cadastre')).toMatchObject({ outcome: 'published', rowsRead: 3, rowsStaged: 2, rowsRejected: 1, rowsRepaired: 1, inserted: 2 });
    const rejects = await pipeline.pool.query(`SELECT position, disposition, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId]);
    expect(rejects.rows).toEqual([
      { position: 2, disposition: 'repaired', reason: expect.stringMatching(/^invalid polygon: Self-intersection.*\(repaired with ST_MakeValid\)$/) },
      { position: 3, disposition: 'rejected', reason: 'duplicate key parcel_id=9000001 (first at position 1)' },
    ]);
    const repaired = await pipeline.pool.query(`SELECT ST_IsValid(geom) AS valid, ST_NumGeometries(geom) AS parts FROM parcel WHERE parcel_id = '9000002'`);
    expect(repaired.rows[0]).toEqual({ valid: true, parts: 2 });
    // The Oslo extract replaced only Oslo's parcels.
    expect(await liveCount(pipeline.pool, 'parcel', 'NO')).toBe(PARCELS - truth.filter((p) => p.kommunenummer === '0301').length + 2);
  });
});
