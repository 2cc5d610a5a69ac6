import { readFileSync } from 'node:fs';
import { area as geodesicArea } from '@turf/area';
import { booleanClockwise } from '@turf/boolean-clockwise';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { booleanValid } from '@turf/boolean-valid';
import { polygon } from '@turf/helpers';
import { kinks } from '@turf/kinks';
import type { Feature, MultiPolygon, Polygon } from 'geojson';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildParcel, sampleParcels } from '../../sample/generate.js';
import { planSample } from '../../sample/plan.js';
import type { SampleParcel } from '../../sample/types.js';
import { REAL_NO_MUNICIPALITIES_GEOJSON } from '../support/real-data.js';
import { parcelPolygonUtm, parcelPolygonWgs84, pointToWgs84, shoelace } from './helpers.js';

const PARCELS = 5000; // the demo size
const SEED = 'truth';

const cellKey = (p: { kommunenummer: string; row: number; col: number }) => `${p.kommunenummer}:${p.row}:${p.col}`;
const pointKey = ([e, n]: [number, number]) => `${e.toFixed(2)} ${n.toFixed(2)}`;

describe('sample parcels (truth objects)', () => {
  let parcels: SampleParcel[];
  let byCell: Map<string, SampleParcel>;

  beforeAll(() => {
    parcels = [...sampleParcels({ parcels: PARCELS, seed: SEED })];
    byCell = new Map(parcels.map((p) => [cellKey(p), p]));
  });

  it('covers the five demo municipalities with 1000 parcels each', () => {
    const counts = new Map<string, number>();
    for (const p of parcels) counts.set(p.kommunenummer, (counts.get(p.kommunenummer) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ '0301': 1000, '4601': 1000, '5001': 1000, '4204': 1000, '3201': 1000 });
    expect(parcels.find((p) => p.kommunenummer === '5001')!.kommunenavn).toBe('Trondheim - Tråante');
  });

  it('places every parcel inside its real municipality', () => {
    const geo = JSON.parse(readFileSync(REAL_NO_MUNICIPALITIES_GEOJSON, 'utf8')) as {
      features: Feature<Polygon | MultiPolygon, { kommunenummer: string }>[];
    };
    const areas = new Map(geo.features.map((f) => [f.properties.kommunenummer, f]));
    for (const p of parcels) {
      expect(booleanPointInPolygon(pointToWgs84(p.representasjonspunkt), areas.get(p.kommunenummer)!)).toBe(true);
    }
  });

  it('builds valid polygons: no self-intersection, counter-clockwise shell, clockwise hole inside it', () => {
    for (const p of parcels) {
      const shape = parcelPolygonUtm(p);
      expect(kinks(shape).features).toHaveLength(0);
      expect(booleanValid(shape)).toBe(true);
      expect(booleanClockwise(p.exterior)).toBe(false);
      for (const hole of p.holes) {
        expect(booleanClockwise(hole)).toBe(true);
        for (const corner of hole) expect(booleanPointInPolygon(corner, polygon([p.exterior]), { ignoreBoundary: true })).toBe(true);
      }
      expect(p.exterior[0]).toEqual(p.exterior.at(-1));
    }
  });

  it('uses mostly 5 to 12 vertices: jittered corners plus edge points', () => {
    const vertices = parcels.map((p) => p.exterior.length - 1);
    expect(Math.min(...vertices)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...vertices)).toBeLessThanOrEqual(12);
    expect(vertices.filter((v) => v >= 5).length / vertices.length).toBeGreaterThan(0.95);
    // jittered: not axis-aligned rectangles
    expect(parcels.filter((p) => p.exterior[0][0] !== p.exterior.at(-2)![0]).length / PARCELS).toBeGreaterThan(0.9);
  });

  it('makes neighbouring parcels share boundary vertices exactly, traversed in opposite directions', () => {
    let pairs = 0;
    for (const a of parcels) {
      for (const [dr, dc] of [[0, 1], [1, 0]]) {
        const b = byCell.get(cellKey({ kommunenummer: a.kommunenummer, row: a.row + dr, col: a.col + dc }));
        if (!b) continue;
        pairs++;
        const bPoints = new Set(b.exterior.map(pointKey));
        const shared = a.exterior.slice(0, -1).filter((pt) => bPoints.has(pointKey(pt)));
        expect(shared.length).toBeGreaterThanOrEqual(2);
        // every shared edge segment of a appears reversed in b
        const bSegments = new Set<string>();
        for (let i = 1; i < b.exterior.length; i++) bSegments.add(`${pointKey(b.exterior[i - 1])}>${pointKey(b.exterior[i])}`);
        let sharedSegments = 0;
        for (let i = 1; i < a.exterior.length; i++) {
          const [from, to] = [pointKey(a.exterior[i - 1]), pointKey(a.exterior[i])];
          if (bPoints.has(from) && bPoints.has(to)) {
            expect(bSegments.has(`${to}>${from}`)).toBe(true);
            sharedSegments++;
          }
        }
        expect(sharedSegments).toBe(shared.length - 1);
      }
    }
    expect(pairs).toBeGreaterThan(9000);
  });

  it('states lagretBeregnetAreal as the planar UTM33 area minus holes', () => {
    for (const p of parcels) {
      const planar = shoelace(p.exterior) - p.holes.reduce((sum, h) => sum + shoelace(h), 0);
      expect(p.area).toBeCloseTo(planar, 6);
      expect(p.lagretBeregnetAreal).toBe(Math.round(planar * 10) / 10);
      // geodesic area differs from UTM33 planar area only by the projection's scale (< 1.5 % here)
      expect(Math.abs(geodesicArea(parcelPolygonWgs84(p)) / planar - 1)).toBeLessThan(0.015);
    }
  });

  it('puts every address strictly inside its parcel, outside any hole, and inside no other parcel', () => {
    let checked = 0;
    for (const p of parcels) {
      const shape = parcelPolygonWgs84(p);
      const neighbours: SampleParcel[] = [];
      for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) {
        const n = byCell.get(cellKey({ kommunenummer: p.kommunenummer, row: p.row + dr, col: p.col + dc }));
        if (n && n !== p) neighbours.push(n);
      }
      for (const a of p.addresses) {
        const point = pointToWgs84([a.east, a.north]);
        expect(booleanPointInPolygon(point, shape, { ignoreBoundary: true })).toBe(true);
        for (const hole of p.holes) expect(booleanPointInPolygon([a.east, a.north], polygon([hole]))).toBe(false);
        for (const n of neighbours) expect(booleanPointInPolygon(point, parcelPolygonWgs84(n))).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(PARCELS * 3);
  });

  it('points every address at a matrikkelenhet of its own parcel', () => {
    for (const p of parcels) {
      for (const a of p.addresses) {
        expect(a.kommunenummer).toBe(p.kommunenummer);
        const match = p.units.some(
          (u) => u.gardsnummer === a.gardsnummer && u.bruksnummer === a.bruksnummer && u.festenummer === (a.festenummer ?? 0),
        );
        expect(match).toBe(true);
      }
    }
  });

  it('has about 3.3 addresses per parcel, 0 to 8 each', () => {
    const counts = parcels.map((p) => p.addresses.length);
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(mean).toBeGreaterThan(3.15);
    expect(mean).toBeLessThan(3.6);
    expect(Math.min(...counts)).toBe(0);
    expect(Math.max(...counts)).toBe(8);
  });

  it('has the special cases in realistic shares', () => {
    const share = (f: (p: SampleParcel) => boolean) => parcels.filter(f).length / PARCELS;
    expect(share((p) => p.holes.length === 1)).toBeGreaterThan(0.012);
    expect(share((p) => p.holes.length === 1)).toBeLessThan(0.03);
    expect(share((p) => p.kind === 'secondary')).toBeGreaterThan(0.012);
    expect(share((p) => p.kind === 'secondary')).toBeLessThan(0.03);
    expect(share((p) => p.teigMedFlereMatrikkelenheter)).toBeGreaterThan(0.005);
    expect(share((p) => p.teigMedFlereMatrikkelenheter)).toBeLessThan(0.018);
    expect(share((p) => p.kind === 'sectioned')).toBeGreaterThan(0.02);
    expect(share((p) => p.kind === 'sectioned')).toBeLessThan(0.05);
    expect(share((p) => p.units.some((u) => u.festenummer > 0))).toBeGreaterThan(0.01);
    const addresses = parcels.flatMap((p) => p.addresses);
    const matrikkel = addresses.filter((a) => a.adressetype === 'matrikkeladresse').length / addresses.length;
    expect(matrikkel).toBeGreaterThan(0);
    expect(matrikkel).toBeLessThan(0.02);
  });

  it('gives a second teig to properties that keep their main teig two cells west', () => {
    const secondaries = parcels.filter((p) => p.kind === 'secondary');
    expect(secondaries.length).toBeGreaterThan(0);
    for (const s of secondaries) {
      expect(s.units).toHaveLength(1);
      expect(s.units[0].hovedteig).toBe(false);
      const main = byCell.get(cellKey({ kommunenummer: s.kommunenummer, row: s.row, col: s.col - 2 }))!;
      expect(main.units).toEqual([{ ...s.units[0], hovedteig: true }]);
      expect(main.matrikkelnummerTekst).toBe(s.matrikkelnummerTekst);
    }
  });

  it('numbers every matrikkelenhet once (a second teig repeats its main teig unit)', () => {
    const main = parcels.flatMap((p) => p.units.filter((u) => u.hovedteig).map((u) => u.cadastreId));
    expect(new Set(main).size).toBe(main.length);
    expect(main).toContain(parcels[0].units[0].cadastreId);
    expect(parcels[0].units[0].cadastreId).toMatch(/^0301-\d+-\d+-\d+-\d+$/);
  });

  it('builds parcel i the same without its predecessors', () => {
    const plan = planSample(PARCELS, SEED);
    for (const i of [4999, 2500, 1234, 0, 3001]) expect(buildParcel(plan, i)).toEqual(parcels[i]);
    expect(buildParcel(plan, 17, { withAddresses: false })).toEqual({ ...parcels[17], addresses: [] });
  });
});
