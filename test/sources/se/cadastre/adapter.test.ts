import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seCadastre } from '../../../../sources/se/cadastre/adapter.js';
import { typeOfBlock } from '../../../../sources/se/cadastre-id.js';
import { planSwedishSample, propertiesOfSwedishPlan } from '../../../../sample/se/properties.js';
import { writeSeCadastreGpkg } from '../../../../sample/se/write-geopackages.js';
import { parseFile, rectangle, rowObject, tempDir, writeLayer } from '../gpkg-support.js';

let dir: string;
let samplePath: string;
beforeAll(async () => {
  dir = await tempDir();
  samplePath = path.join(dir, 'fastighetsindelning_sverige.gpkg');
  writeSeCadastreGpkg({ path: samplePath, seed: '7', parcels: 400, plan: undefined as never });
});

const AREA_COLUMNS = {
  objektidentitet: 'TEXT', registerenhetsreferens: 'TEXT', objekttyp: 'TEXT', senastandrad: 'DATETIME', kommunkod: 'TEXT',
  kommunnamn: 'TEXT', trakt: 'TEXT', block: 'TEXT', enhet: 'INTEGER', omradesnummer: 'INTEGER', etikett: 'TEXT',
} as const;
const area = (overrides: Record<string, string | number | null>) => ({
  objektidentitet: 'a-1', registerenhetsreferens: 'p-1', objekttyp: 'fastighetsområde', senastandrad: '2020-12-17T11:02:00Z', kommunkod: '1462',
  kommunnamn: 'LILLA EDET', trakt: 'ATTLERED', block: '1', enhet: 7, omradesnummer: 1, etikett: '1:7', ...overrides,
});
const square = { type: 'MultiPolygon' as const, polygons: [[rectangle(335100, 6435040, 335130, 6435070)]] };

describe('se-cadastre parser', () => {
  it('reads every area of the sample with the designation and cadastreId of its property', async () => {
    const { rows, rejects } = await parseFile(seCadastre, samplePath);
    expect(rejects).toEqual([]);
    const areas = [...propertiesOfSwedishPlan(planSwedishSample(400, '7'))].flatMap((p) => p.areas.map((a) => ({ p, a })));
    expect(rows).toHaveLength(areas.length);
    rows.forEach((row, i) => {
      const staged = rowObject(seCadastre, row);
      const { p, a } = areas[i];
      expect(staged).toMatchObject({
        parcel_id: a.objektidentitet, register_ref: p.registerenhetsreferens, cadastre_id: p.cadastreId, designation: p.designation,
        municipality_code: p.kommunkod, property_type: typeOfBlock(p.block), area_number: a.omradesnummer, source_srid: 3006,
      });
      expect(Math.abs(Number(staged.area_m2) - a.area)).toBeLessThan(0.01); // staged to 0.01 m²
      expect(String(staged.geom)).toMatch(/^SRID=4326;MULTIPOLYGON\(\(\((1[0-9]|2[0-4])\.\d{7} (5[5-9]|6[0-9])\.\d{7},/); // lon, lat in Sweden
    });
  });

  it('reads the register variants: kvarter and area suffix, samfällighet only in the etikett, s/ga/FA in either case, integer kommunkod', async () => {
    const file = writeLayer(path.join(dir, 'variants.gpkg'), { table: 'registerenhetsomradesyta', geometryType: 'MULTIPOLYGON', columns: AREA_COLUMNS }, [
      { attributes: area({ objektidentitet: 'a-1', registerenhetsreferens: 'p-1', kommunkod: '2480', kommunnamn: 'UMEÅ', trakt: 'TOLVMANSGÅRDEN', block: null, enhet: 4, etikett: '4>2', omradesnummer: 2 }), geometry: square },
      { attributes: area({ objektidentitet: 'a-2', registerenhetsreferens: 'p-2', objekttyp: 'samfällighetsområde', block: null, enhet: 3, etikett: 'S:3' }), geometry: square },
      // The letter codes as Lantmäteriet writes them today, in lower case.
      { attributes: area({ objektidentitet: 'a-4', registerenhetsreferens: 'p-4', objekttyp: 'samfällighetsområde', block: 's', enhet: 4, etikett: 's:4' }), geometry: square },
      { attributes: area({ objektidentitet: 'a-5', registerenhetsreferens: 'p-5', objekttyp: 'ospecificerat område', block: 'ga', enhet: 1, etikett: 'ga:1>2', omradesnummer: 2 }), geometry: square },
      { attributes: area({ objektidentitet: 'a-6', registerenhetsreferens: 'p-6', objekttyp: 'fiskelott', block: null, enhet: 2, etikett: 'FA:2' }), geometry: square },
    ]);
    // A producer that types kommunkod as INTEGER loses the leading zero.
    const integerCodes = writeLayer(path.join(dir, 'integer-codes.gpkg'), { table: 'registerenhetsomradesyta', geometryType: 'MULTIPOLYGON', columns: { ...AREA_COLUMNS, kommunkod: 'INTEGER' } }, [
      { attributes: area({ objektidentitet: 'a-3', registerenhetsreferens: 'p-3', kommunkod: 180, kommunnamn: 'STOCKHOLM', trakt: 'STORA ESSINGEN', etikett: '1:7>1' }), geometry: square },
    ]);
    const first = await parseFile(seCadastre, file);
    const second = await parseFile(seCadastre, integerCodes);
    const rows = [...first.rows, ...second.rows];
    expect([...first.rejects, ...second.rejects]).toEqual([]);
    expect(rows.map((r) => rowObject(seCadastre, r)).map((s) => [s.cadastre_id, s.designation, s.property_type])).toEqual([
      ['2480_TOLVMANSGÅRDEN_4', 'UMEÅ TOLVMANSGÅRDEN 4', 'FASTIGHET'],
      ['1462_ATTLERED_S_3', 'LILLA EDET ATTLERED S:3', 'SAMFÄLLIGHET'],
      ['1462_ATTLERED_S_4', 'LILLA EDET ATTLERED S:4', 'SAMFÄLLIGHET'],
      ['1462_ATTLERED_GA_1', 'LILLA EDET ATTLERED GA:1', 'GEMENSAMHETSANLÄGGNING'],
      ['1462_ATTLERED_FA_2', 'LILLA EDET ATTLERED FA:2', 'FISKEOMRÅDE'],
      ['0180_STORA-ESSINGEN_1_7', 'STOCKHOLM STORA ESSINGEN 1:7', 'FASTIGHET'],
    ]);
  });

  it('quarantines unusable areas with the reason and the attributes', async () => {
    const file = writeLayer(path.join(dir, 'bad.gpkg'), { table: 'registerenhetsomradesyta', geometryType: 'MULTIPOLYGON', columns: AREA_COLUMNS }, [
      { attributes: area({ kommunkod: 'ABC' }), geometry: square },
      { attributes: area({ etikett: '1:8' }), geometry: square },
      { attributes: area({ registerenhetsreferens: null }), geometry: square },
      { attributes: area({}), geometry: { type: 'MultiPolygon', polygons: [] } },
      { attributes: area({}), geometry: { type: 'Point', points: [335100, 6435040] } },
      { attributes: area({ objekttyp: 'vägområde' }), geometry: square },
      { attributes: area({ objektidentitet: 'ok' }), geometry: square },
    ]);
    const { rows, rejects } = await parseFile(seCadastre, file);
    expect(rows.map((r) => r.position)).toEqual([7]);
    expect(rejects.map((r) => [r.position, r.reason])).toEqual([
      [1, 'kommunkod "ABC" is not a municipality code'],
      [2, 'etikett "1:8" disagrees with block "1" and enhet 7'],
      [3, 'registerenhetsreferens is empty: the area belongs to no property'],
      [4, 'empty geometry (the blob header sets the empty flag)'],
      [5, 'geometry is a Point, not a polygon'],
      [6, 'objekttyp "vägområde" is not a Fastighetsindelning area type'],
    ]);
    expect(JSON.parse(rejects[0].raw)).toMatchObject({ fid: 1, kommunkod: 'ABC', trakt: 'ATTLERED' });
  });

  it('reads the GeoPackage inside a zip download, and removes the extracted copy', async () => {
    const zip = path.join(dir, 'download', 'fastighetsindelning_kn0180.zip');
    await mkdir(path.dirname(zip), { recursive: true });
    const archive = new yazl.ZipFile();
    archive.addFile(samplePath, 'fastighetsindelning_kn0180/fastighetsindelning_kn0180.gpkg');
    archive.end();
    await pipeline(archive.outputStream, createWriteStream(zip));
    const { rows } = await parseFile(seCadastre, zip);
    expect(rows.length).toBeGreaterThan(400);
    expect(readdirSync(path.dirname(zip))).toEqual(['fastighetsindelning_kn0180.zip']);
    expect(existsSync(samplePath)).toBe(true);
  });

  it('fails a file without the layer, naming the layers it has', async () => {
    const file = writeLayer(path.join(dir, 'byggnad.gpkg'), { table: 'byggnad', geometryType: 'MULTIPOLYGON', columns: { objektidentitet: 'TEXT' } }, []);
    await expect(parseFile(seCadastre, file)).rejects.toThrow('byggnad.gpkg has no feature layer "registerenhetsomradesyta" (layers: byggnad)');
  });
});
