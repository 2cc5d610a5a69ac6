import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAndamal, seBuilding } from '../../../../sources/se/building/adapter.js';
import { planSwedishSample, propertiesOfSwedishPlan } from '../../../../sample/se/properties.js';
import { writeSeBuildingGpkg } from '../../../../sample/se/write-geopackages.js';
import { parseFile, realByggnadGpkg, rectangle, rowObject, tempDir, writeLayer } from '../gpkg-support.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

describe('se-building parser', () => {
  it('parses andamal as objekttyp;ändamål, trimming the older product\'s space', () => {
    expect(parseAndamal('Bostad;Småhus friliggande')).toEqual({ objekttyp: 'Bostad', andamal: 'Småhus friliggande' });
    expect(parseAndamal('Samhällsfunktion; Skola')).toEqual({ objekttyp: 'Samhällsfunktion', andamal: 'Skola' });
    expect(parseAndamal(null)).toBeNull();
    expect(() => parseAndamal('Bostad')).toThrow(/not "objekttyp;ändamål"/);
  });

  it('reads the real Lantmäteriet buildings (14 footprints, EPSG:3006 easting, northing)', async () => {
    const file = realByggnadGpkg(path.join(dir, 'byggnad_real.gpkg'));
    const { rows, rejects } = await parseFile(seBuilding, file);
    expect(rejects).toEqual([]);
    expect(rows).toHaveLength(14);
    const staged = rows.map((r) => rowObject(seBuilding, r));
    expect(new Set(staged.map((s) => s.building_type_code))).toEqual(new Set(['2061', '2062', '2063', '2064', '2065', '2066', '2067']));
    expect(staged[0]).toMatchObject({ building_id: '78128735-9eb5-4712-a158-cb7bb0613779', building_type_name: 'Ekonomibyggnad', municipality_code: null, source_updated_at: '2023-02-15T18:00:01' });
    // Its first vertex 657472.463 E, 6582305.796 N; PROJ's cs2cs gives 59.3500427 N, 17.7695999 E.
    expect(String(staged[0].geom)).toMatch(/^SRID=4326;MULTIPOLYGON\(\(\(17\.7695999 59\.3500427,/);
    expect(Number(staged[0].area_m2)).toBeGreaterThan(10);
  });

  it('stages each part of a multipart building, the municipality from the file name', async () => {
    const file = path.join(dir, 'byggnad_kn0180.gpkg');
    writeSeBuildingGpkg({ path: file, seed: '7', parcels: 300, plan: undefined as never });
    const { rows, rejects } = await parseFile(seBuilding, file);
    expect(rejects).toEqual([]);
    const buildings = [...propertiesOfSwedishPlan(planSwedishSample(300, '7'))].flatMap((p) => p.buildings);
    expect(rows).toHaveLength(buildings.reduce((n, b) => n + b.parts.length, 0));
    const staged = rows.map((r) => rowObject(seBuilding, r));
    const multipart = buildings.find((b) => b.parts.length === 2)!;
    expect(staged.filter((s) => s.building_id === multipart.objektidentitet)).toHaveLength(2);
    expect(staged.every((s) => s.municipality_code === '0180')).toBe(true);
    const mixed = buildings.find((b) => b.andamal.length === 2)!;
    expect(staged.find((s) => s.building_id === mixed.objektidentitet)).toMatchObject({ purposes: mixed.andamal, is_main_building: true, house_number: '1' });
  });

  it('quarantines rows it cannot use', async () => {
    const columns = { objektidentitet: 'TEXT', objekttypnr: 'INTEGER', objekttyp: 'TEXT', huvudbyggnad: 'TEXT', husnummer: 'INTEGER', andamal1: 'TEXT' } as const;
    const footprint = { type: 'MultiPolygon' as const, polygons: [[rectangle(650000, 6580000, 650010, 6580010)]] };
    const base = { objektidentitet: 'b', objekttypnr: 2061, objekttyp: 'Bostad', huvudbyggnad: 'Ja', husnummer: 1, andamal1: 'Bostad;Flerfamiljshus' };
    const file = writeLayer(path.join(dir, 'bad-buildings.gpkg'), { table: 'byggnad', geometryType: 'MULTIPOLYGON', columns }, [
      { attributes: { ...base, huvudbyggnad: 'Kanske' }, geometry: footprint },
      { attributes: { ...base, andamal1: 'Flerfamiljshus' }, geometry: footprint },
      { attributes: { ...base, objektidentitet: null }, geometry: footprint },
      { attributes: base, geometry: Buffer.from('GQ\0\x01\xb8\x0b\0\0', 'latin1') },
      { attributes: base, geometry: footprint },
    ]);
    const { rows, rejects } = await parseFile(seBuilding, file);
    expect(rejects.map((r) => [r.position, r.reason])).toEqual([
      [1, 'huvudbyggnad "Kanske" is not Ja or Nej'],
      [2, 'andamal "Flerfamiljshus" is not "objekttyp;ändamål"'],
      [3, 'objektidentitet is empty'],
      [4, 'unreadable geometry blob: geometry blob starts with 0x4751, not the GeoPackage magic "GP"'],
    ]);
    expect(rows.map((r) => r.position)).toEqual([5]);
  });
});
