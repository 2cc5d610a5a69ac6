import { readFileSync } from 'node:fs';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { booleanWithin } from '@turf/boolean-within';
import { polygon as turfPolygon } from '@turf/helpers';
import type { Feature, MultiPolygon, Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { transformTo } from '../../../sources/geo/reproject.js';
import { planSwedishSample, propertiesOfSwedishPlan, sampleSwedishProperties, swedishPropertyAt } from '../../../sample/se/properties.js';
import type { SePoint, SeSampleProperty } from '../../../sample/se/types.js';
import { REAL_SE_MUNICIPALITIES_GEOJSON } from '../../support/real-data.js';

const toWgs84 = transformTo(3006);
const boundaries = new Map(
  (JSON.parse(readFileSync(REAL_SE_MUNICIPALITIES_GEOJSON, 'utf8')) as { features: Feature<Polygon | MultiPolygon, { id: string }>[] }).features.map((f) => [f.properties.id, f]),
);

const inside = (point: SePoint, ring: SePoint[]) => {
  const [x, y] = point;
  const xs = ring.map((p) => p[0]), ys = ring.map((p) => p[1]);
  return x > Math.min(...xs) && x < Math.max(...xs) && y > Math.min(...ys) && y < Math.max(...ys);
};

describe('Swedish sample plan', () => {
  const properties = [...sampleSwedishProperties('42', 3000)];

  it('is deterministic from the seed and rebuilds any property from its index alone', () => {
    expect([...sampleSwedishProperties('42', 3000)].slice(0, 50)).toEqual(properties.slice(0, 50));
    const plan = planSwedishSample(3000, '42');
    expect(swedishPropertyAt(plan, 2718)).toEqual(properties[2718]);
    expect([...sampleSwedishProperties('43', 3000)][0].registerenhetsreferens).not.toBe(properties[0].registerenhetsreferens);
  });

  it('has every kind of designation, with unique ids and register UUIDs', () => {
    const kinds = new Set(properties.map((p) => p.kind));
    expect(kinds).toEqual(new Set(['fastighet', 'kvarter', 'samfallighet', 'gemensamhetsanlaggning']));
    expect(new Set(properties.map((p) => p.cadastreId)).size).toBe(properties.length);
    expect(new Set(properties.map((p) => p.registerenhetsreferens)).size).toBe(properties.length);
    for (const p of properties) {
      if (p.kind === 'fastighet') expect(p.cadastreId).toMatch(/^\d{4}_[A-ZÅÄÖ-]+_\d+_\d+$/);
      if (p.kind === 'kvarter') expect(p.cadastreId).toMatch(/^\d{4}_[A-ZÅÄÖ-]+_\d+$/);
      if (p.kind === 'samfallighet') expect(p.cadastreId).toMatch(/^\d{4}_[A-ZÅÄÖ-]+_S_\d+$/);
      if (p.kind === 'gemensamhetsanlaggning') {
        expect(p.cadastreId).toMatch(/^\d{4}_[A-ZÅÄÖ-]+_GA_\d+$/);
        expect(p.areas[0].etikett).toMatch(/^ga:\d+$/); // lower case, as Lantmäteriet writes it
      }
      if (p.kind === 'samfallighet' || p.kind === 'gemensamhetsanlaggning') expect([p.addresses, p.buildings]).toEqual([[], []]);
      expect(p.designation.startsWith(`${p.kommunnamn} ${p.trakt} `)).toBe(true);
    }
    expect(properties.some((p) => p.trakt.includes(' ') && p.cadastreId.includes(p.trakt.replace(/ /g, '-')))).toBe(true);
    expect(properties.filter((p) => p.areas.length === 2).length).toBeGreaterThan(100);
    expect(properties.find((p) => p.areas.length === 2)!.areas.map((a) => a.etikett)).toEqual([
      expect.stringMatching(/>1$/), expect.stringMatching(/>2$/),
    ]);
  });

  it('puts addresses and buildings inside their property, and properties inside their real municipality', () => {
    for (const p of properties) {
      for (const a of p.addresses) expect(inside(a.point, p.areas[0].exterior)).toBe(true);
      for (const b of p.buildings) for (const part of b.parts) for (const vertex of part) expect(inside(vertex, p.areas[0].exterior) || p.areas[0].exterior.some((v) => v[0] === vertex[0] || v[1] === vertex[1])).toBe(true);
      if (p.index % 7 === 0) {
        const ring = p.areas[0].exterior.map(([e, n]) => toWgs84(e, n));
        expect(booleanWithin(turfPolygon([ring]), boundaries.get(p.kommunkod)!)).toBe(true);
      }
    }
  });

  it('writes the register variants of addresses and buildings', () => {
    const addresses = properties.flatMap((p) => p.addresses);
    expect(addresses.some((a) => a.bokstavstillagg === 'B')).toBe(true);
    expect(addresses.some((a) => a.lagestillagg !== null)).toBe(true);
    expect(addresses.some((a) => a.avvikerfranstandarden)).toBe(true);
    expect(addresses.some((a) => a.statusforbelagenhetsadress === 'Reserverad')).toBe(true);
    expect(addresses.every((a) => a.postnummer >= 10000 && a.postnummer <= 99999)).toBe(true);
    const buildings = properties.flatMap((p) => p.buildings);
    expect(buildings.some((b) => b.parts.length === 2)).toBe(true);
    expect(buildings.some((b) => b.andamal.length === 2)).toBe(true);
    expect(new Set(buildings.map((b) => b.huvudbyggnad))).toEqual(new Set(['Ja', 'Nej']));
  });

  it('places a national-size sample in all 290 municipalities, each inside its boundary', () => {
    const plan = planSwedishSample(3_300_000, '42');
    expect(plan.blocks).toHaveLength(290);
    for (const block of plan.blocks) {
      const corners: SeSampleProperty[] = [block.firstProperty, block.firstProperty + block.count - 1].map((i) => swedishPropertyAt(plan, i));
      for (const corner of corners) {
        const [lon, lat] = toWgs84(...corner.areas[0].exterior[0]);
        expect(booleanPointInPolygon([lon, lat], boundaries.get(block.municipality.kommunkod)!), block.municipality.name).toBe(true);
      }
    }
  });
});
