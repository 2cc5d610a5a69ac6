import { Readable } from 'node:stream';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { polygon } from '@turf/helpers';
import { describe, expect, it } from 'vitest';
import { buildParcel, parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { detailRecordsOf } from '../../../sample/no/building-details.js';
import { sampleBuildingsOf, type SampleBuilding } from '../../../sample/no/buildings.js';
import { bygningGmlPieces } from '../../../sample/no/write-bygning-gml.js';
import { exchangeValidator } from '../../../sources/formats/json-lines.js';
import { transformTo } from '../../../sources/geo/reproject.js';
import { BUILDING_STATUS_NAMES, BUILDING_TYPES, buildingStatusOf } from '../../../sources/no/building/codes.js';
import { noBuilding, readBuildings } from '../../../sources/no/building/adapter.js';
import { detailRow } from '../../../sources/no/matrikkel-detail/adapter.js';
import type { SampleParcel } from '../../../sample/types.js';

const PARCELS = 1500;
const plan = planSample(PARCELS, 'buildings-test');
const parcels: SampleParcel[] = [...parcelsOfPlan(plan)];
const buildingsOf = new Map<number, SampleBuilding[]>(parcels.map((p) => [p.index, sampleBuildingsOf(p, plan.seedHash)]));
const all = [...buildingsOf.values()].flat();

describe('sampleBuildingsOf', () => {
  it('is a pure function of the parcel and the seed; addresses only fill the unit address links', () => {
    for (const parcel of parcels.slice(0, 200)) {
      const again = sampleBuildingsOf(buildParcel(plan, parcel.index), plan.seedHash);
      expect(again).toEqual(buildingsOf.get(parcel.index));
      const withoutAddresses = sampleBuildingsOf(buildParcel(plan, parcel.index, { withAddresses: false }), plan.seedHash);
      const strip = (bs: SampleBuilding[]) => bs.map((b) => ({ ...b, units: b.units.map((u) => ({ ...u, addressId: null })) }));
      expect(withoutAddresses).toEqual(strip(again));
    }
    const otherSeed = planSample(PARCELS, 'another seed');
    expect(sampleBuildingsOf(buildParcel(otherSeed, 7), otherSeed.seedHash)).not.toEqual(buildingsOf.get(7));
  });

  it('gives every building a unique number and id, and every unit a unique id and a unique number in its building', () => {
    expect(new Set(all.map((b) => b.buildingNumber)).size).toBe(all.length);
    expect(new Set(all.map((b) => b.bygningId)).size).toBe(all.length);
    const units = all.flatMap((b) => b.units);
    expect(new Set(units.map((u) => u.bruksenhetId)).size).toBe(units.length);
    for (const b of all) expect(new Set(b.units.map((u) => u.unitNumber)).size).toBe(b.units.length);
    expect(all.length / PARCELS).toBeGreaterThan(1.2); // houses with garages, blocks, farms: more buildings than parcels
    expect(all.length / PARCELS).toBeLessThan(2.5);
  });

  it('puts every building strictly inside its teig and outside the teig\'s hole', () => {
    for (const parcel of parcels) {
      const shape = polygon([parcel.exterior, ...parcel.holes]);
      for (const b of buildingsOf.get(parcel.index)!) expect(booleanPointInPolygon(b.point, shape, { ignoreBoundary: true })).toBe(true);
    }
  });

  it('uses only codes of the Matrikkel lists, with a status history that ends in the current status', () => {
    for (const b of all) {
      expect(BUILDING_TYPES.has(b.typeCode)).toBe(true);
      expect(BUILDING_STATUS_NAMES.has(b.statusCode)).toBe(true);
      expect(b.statusHistory.at(-1)!.code).toBe(b.statusCode);
      const dates = b.statusHistory.map((s) => s.changedDate);
      expect([...dates].sort()).toEqual(dates);
      for (const s of b.statusHistory) expect(s.registeredDate >= s.changedDate).toBe(true);
      const status = buildingStatusOf(b.statusCode);
      if (status === 'UNDER_CONSTRUCTION') expect(b.builtYear).toBeNull();
      if (status === 'IN_USE') expect(b.builtYear).toBeGreaterThanOrEqual(1850);
      expect(b.usableAreaM2).toBeLessThanOrEqual(b.grossAreaM2);
      expect(b.units.reduce((sum, u) => sum + u.usableAreaM2, 0)).toBeLessThanOrEqual(b.usableAreaM2);
    }
    const statuses = new Set(all.map((b) => buildingStatusOf(b.statusCode)));
    expect(statuses).toContain('IN_USE');
    expect(statuses).toContain('UNDER_CONSTRUCTION');
  });

  it('stands buildings on the parcel\'s units, puts one unit per section in a sectioned block, and takes unit addresses from the unit\'s property', () => {
    let sectioned = 0;
    for (const parcel of parcels) {
      const buildings = buildingsOf.get(parcel.index)!;
      const whole = new Set(parcel.units.map((u) => u.cadastreId.replace(/-\d+$/, '-0')));
      for (const b of buildings) expect(whole.has(b.cadastreId)).toBe(true);
      if (parcel.kind === 'sectioned') {
        sectioned += 1;
        const block = buildings.find((b) => b.isMainBuilding)!;
        expect(block.units.map((u) => u.cadastreId)).toEqual(parcel.units.map((u) => u.cadastreId));
        expect(block.cadastreId).toBe(parcel.units[0].cadastreId.replace(/-\d+$/, '-0'));
      }
      for (const u of buildings.flatMap((b) => b.units)) {
        if (u.addressId === null) continue;
        const address = parcel.addresses.find((a) => a.adresseId === u.addressId)!;
        expect(address).toBeDefined();
        expect(`${address.kommunenummer}-${address.gardsnummer}-${address.bruksnummer}-${address.festenummer ?? 0}-0`).toBe(u.cadastreId.replace(/-\d+$/, '-0'));
      }
    }
    expect(sectioned).toBeGreaterThan(10);
  });
});

describe('the sample building files', () => {
  it('write GML that the no-building reader turns back into exactly these buildings', async () => {
    const some = parcels.slice(0, 300);
    const stats = { rows: 0 };
    const records = [];
    for await (const batch of readBuildings(Readable.from(bygningGmlPieces(some, plan.seedHash, stats)))) records.push(...batch);
    const truth = some.flatMap((p) => buildingsOf.get(p.index)!);
    expect(stats.rows).toBe(truth.length);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    const toWgs84 = transformTo(25833);
    const col = (name: string) => noBuilding.stagingColumns.findIndex((c) => c.name === name);
    records.forEach((record, i) => {
      if (record.kind !== 'row') throw new Error('reject');
      const b = truth[i];
      const v = record.values;
      expect([v[col('building_id')], v[col('building_type_code')], v[col('status_code')], v[col('cadastre_id')], v[col('source_srid')]]).toEqual([
        String(b.buildingNumber), b.typeCode, b.statusCode, b.cadastreId, 25833,
      ]);
      const [lon, lat] = toWgs84(b.point[0], b.point[1]);
      expect(Number(v[col('lon')])).toBeCloseTo(lon, 6);
      expect(Number(v[col('lat')])).toBeCloseTo(lat, 6);
      const links = JSON.parse(v[col('unit_links')] as string);
      expect(links.map((l: { cadastre_id: string }) => l.cadastre_id)).toEqual(b.units.map((u) => u.cadastreId));
      expect(JSON.parse(v[col('status_history')] as string).map((h: { status_code: string }) => h.status_code)).toEqual(b.statusHistory.map((s) => s.code));
    });
  });

  it('write detail records that all satisfy the exchange schema and the adapter, one bygning per building', () => {
    const validate = exchangeValidator('no-matrikkel-detail');
    let bygninger = 0, seksjoner = 0;
    for (const parcel of parcels) {
      for (const record of detailRecordsOf(parcel, plan.seedHash)) {
        const json = JSON.parse(JSON.stringify(record));
        expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
        expect(() => detailRow(json)).not.toThrow();
        if (record.objekt === 'bygning') bygninger += 1;
        if (record.objekt === 'seksjon') seksjoner += 1;
      }
    }
    expect(bygninger).toBe(all.length);
    expect(seksjoner).toBe(parcels.filter((p) => p.kind === 'sectioned').reduce((sum, p) => sum + p.units.length, 0));
  });
});
