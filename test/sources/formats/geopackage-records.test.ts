import { mkdtemp } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { GeoPackage } from '../../../sources/formats/geopackage.js';
import { GeoPackageWriter } from '../../../sources/formats/geopackage-writer.js';
import { hashGeoPackageRows, type RowLayout } from '../../../sources/formats/geopackage-records.js';
import type { HashedLine } from '../../../sources/formats/line-records.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'nordprop-gpkg-records-'));
});

const SPEC = { layer: 'adress', srid: 3006, columns: ['objektidentitet', 'nummer'] };

/** A point layer with the rows given as [id, number, east]. */
function layer(name: string, rows: [string, number | null, number][]): string {
  const file = path.join(dir, name);
  const writer = GeoPackageWriter.create(file, {
    table: 'adress', geometryColumn: 'geom', geometryType: 'POINT', srsId: 3006,
    columns: [{ name: 'objektidentitet', type: 'TEXT' }, { name: 'nummer', type: 'INTEGER' }, { name: 'ignored', type: 'TEXT' }],
  });
  for (const [id, number, east] of rows) writer.add([id, number, `${Math.random()}`], { type: 'Point', points: [east, 6580000] });
  writer.close();
  return file;
}

async function hashes(file: string): Promise<{ hashed: HashedLine[]; layout: RowLayout }> {
  const layout: RowLayout = { regular: true };
  const hashed: HashedLine[] = [];
  for await (const batch of hashGeoPackageRows(createReadStream(file), { fileName: path.basename(file), artifactPath: file }, SPEC, layout, { batchSize: 2 })) hashed.push(...batch);
  return { hashed, layout };
}

describe('hashGeoPackageRows', () => {
  it('numbers the rows by fid as the reader gives their positions, and hashes only the columns read and the geometry', async () => {
    const rows: [string, number | null, number][] = [['a', 1, 650000], ['b', null, 650010], ['c', 3, 650020]];
    const before = await hashes(layer('before.gpkg', rows));
    const gpkg = GeoPackage.open(path.join(dir, 'before.gpkg'));
    const positions = [...gpkg.features(gpkg.layer('adress'), SPEC.columns)].map((feature) => feature.position);
    gpkg.close();
    expect(before.hashed.map((row) => row.number)).toEqual(positions);
    expect(before.layout.regular).toBe(true);

    // `ignored` differs in every row (a column the adapter does not read); one number and one point moved.
    const after = await hashes(layer('after.gpkg', [['a', 1, 650000], ['b', 2, 650010], ['c', 3, 650021]]));
    expect(after.hashed.map((row) => row.hash === before.hashed[row.number - 1].hash)).toEqual([true, false, false]);
  });

  it('finds fids too sparse for a bit each irregular, so the file is staged whole', async () => {
    const file = layer('sparse.gpkg', [['a', 1, 650000]]);
    const db = new Database(file);
    db.prepare('UPDATE adress SET fid = 50000000').run();
    db.close();
    const { hashed, layout } = await hashes(file);
    expect(hashed.map((row) => row.number)).toEqual([50_000_000]);
    expect(layout.regular).toBe(false);
  });
});
