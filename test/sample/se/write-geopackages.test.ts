import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GeoPackage } from '../../../sources/formats/geopackage.js';
import { planSwedishSample, propertiesOfSwedishPlan } from '../../../sample/se/properties.js';
import { SE_GEODATA_SAMPLE_FILES } from '../../../sample/se/write-geopackages.js';


let dirs: string[];
const COUNT = 500;
const write = async (dir: string) => {
  for (const file of SE_GEODATA_SAMPLE_FILES) await file.write({ path: path.join(dir, file.fileName), seed: 's', parcels: COUNT, plan: undefined as never });
};
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  dirs = [await mkdtemp(path.join(tmpdir(), 'nordprop-se-sample-')), await mkdtemp(path.join(tmpdir(), 'nordprop-se-sample-'))];
  for (const dir of dirs) await write(dir);
});

describe('Swedish sample GeoPackages', () => {
  it('are written under the adapters\' file names, byte-identical for the same seed', () => {
    expect(SE_GEODATA_SAMPLE_FILES.map((f) => [f.sourceId, f.fileName])).toEqual([
      ['se-cadastre', 'fastighetsindelning_sverige.gpkg'], ['se-address', 'belagenhetsadresser_sverige.gpkg'], ['se-building', 'byggnad_sverige.gpkg'],
    ]);
    for (const file of SE_GEODATA_SAMPLE_FILES) expect(sha(path.join(dirs[0], file.fileName))).toBe(sha(path.join(dirs[1], file.fileName)));
  });

  it('hold one row per area, address and building part, with the layer extent recorded', () => {
    const truth = [...propertiesOfSwedishPlan(planSwedishSample(COUNT, 's'))];
    const expected: Record<string, [string, number]> = {
      'fastighetsindelning_sverige.gpkg': ['registerenhetsomradesyta', truth.reduce((n, p) => n + p.areas.length, 0)],
      'belagenhetsadresser_sverige.gpkg': ['belagenhetsadress', truth.reduce((n, p) => n + p.addresses.length, 0)],
      'byggnad_sverige.gpkg': ['byggnad', truth.reduce((n, p) => n + p.buildings.reduce((m, b) => m + b.parts.length, 0), 0)],
    };
    for (const [name, [table, rows]] of Object.entries(expected)) {
      const gpkg = GeoPackage.open(path.join(dirs[0], name));
      try {
        const layer = gpkg.layer(table, 3006);
        expect(gpkg.count(layer)).toBe(rows);
        expect(gpkg.hasGeoPackageApplicationId).toBe(true);
        expect(layer.bbox![0]).toBeGreaterThan(200_000); // easting first
        expect(layer.bbox![1]).toBeGreaterThan(6_000_000);
      } finally {
        gpkg.close();
      }
    }
  });

  // `npm test` installs GDAL (scripts/test.sh), so this runs everywhere the suite does.
  it('are read by GDAL (ogrinfo) with the same layers, counts and CRS', () => {
    for (const [name, table, type] of [
      ['fastighetsindelning_sverige.gpkg', 'registerenhetsomradesyta', 'Multi Polygon'],
      ['belagenhetsadresser_sverige.gpkg', 'belagenhetsadress', 'Point'],
      ['byggnad_sverige.gpkg', 'byggnad', 'Multi Polygon'],
    ]) {
      const info = execFileSync('ogrinfo', ['-so', '-al', path.join(dirs[0], name)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      expect(info).toContain(`Layer name: ${table}`);
      expect(info).toContain(`Geometry: ${type}`);
      expect(info).toMatch(/ID\["EPSG",3006\]\]$/m);
      const gpkg = GeoPackage.open(path.join(dirs[0], name));
      try {
        expect(info).toContain(`Feature Count: ${gpkg.count(gpkg.layer(table, 3006))}`);
      } finally {
        gpkg.close();
      }
    }
  });
});
