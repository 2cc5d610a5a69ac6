import { mkdtemp, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { GeoPackage } from '../../../sources/formats/geopackage.js';
import { GeoPackageWriter } from '../../../sources/formats/geopackage-writer.js';
import { hashGeoPackageRows, type RowLayout } from '../../../sources/formats/geopackage-records.js';
import type { HashedLine } from '../../../sources/formats/line-records.js';
import { HashThread } from '../../../sources/formats/geopackage-hash-worker.js';
import { InputFormatError } from '../../../sources/formats/input-error.js';
import type { RecordGroup } from '../../../sources/source-adapter.js';

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

async function hashes(file: string, options: { threadFrom?: number; spec?: typeof SPEC & { group?: RecordGroup } } = {}): Promise<{ hashed: HashedLine[]; layout: RowLayout }> {
  const layout: RowLayout = { regular: true };
  const hashed: HashedLine[] = [];
  const rows = hashGeoPackageRows(createReadStream(file), { fileName: path.basename(file), artifactPath: file }, options.spec ?? SPEC, layout, { batchSize: 2, threadFrom: options.threadFrom });
  for await (const batch of rows) hashed.push(...batch);
  return { hashed, layout };
}

const byNumber = (rows: HashedLine[]) => [...rows].sort((a, b) => a.number - b.number);

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

  it('hashes the upper half of the fids in a worker thread, with the same hashes, numbers and groups as one thread', async () => {
    // 401 rows in batches of 2: the thread posts far more batches than it may have in flight, so it waits for this one.
    const rows = Array.from({ length: 401 }, (_, i): [string, number | null, number] => [`id-${i % 50}`, i % 7 ? i : null, 650000 + i]);
    const file = layer('threaded.gpkg', rows);
    const spec = { ...SPEC, group: { column: 'objektidentitet', staged: 'address_id', value: (raw: unknown) => `group of ${raw}` } };
    const started = vi.spyOn(HashThread, 'start');
    const alone = await hashes(file, { threadFrom: Number.MAX_SAFE_INTEGER, spec });
    expect(started).not.toHaveBeenCalled();
    const split = await hashes(file, { threadFrom: 1, spec });
    // fids 1 to 401: this thread hashes 1 to 201, the worker thread 202 to 401.
    expect(started).toHaveBeenCalledTimes(1);
    expect(started.mock.calls[0][0].range).toEqual({ first: 202, last: 401 });
    started.mockRestore();
    expect(alone.hashed).toHaveLength(401);
    expect(byNumber(split.hashed)).toEqual(alone.hashed);
    expect(alone.hashed[3]).toMatchObject({ number: 4, group: 'group of id-3' });
    expect(split.layout.regular).toBe(true);
  });

  it('a thread that cannot read its part fails the pass with the file named, as one thread would', async () => {
    const notGeoPackage = path.join(dir, 'not-a-geopackage.gpkg');
    await writeFile(notGeoPackage, 'fid,objektidentitet\n1,a\n');
    const thread = HashThread.start({ path: notGeoPackage, label: 'adresser.gpkg', layer: 'adress', srid: 3006, columns: SPEC.columns, range: { first: 1, last: 10 }, batchSize: 2 });
    try {
      const failure = await thread.next().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(InputFormatError);
      expect((failure as Error).message).toMatch(/adresser\.gpkg is not a GeoPackage/);
    } finally {
      await thread.stop();
    }
  });
});
