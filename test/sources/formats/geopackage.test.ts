import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { fidBoundsSql, GeoPackage } from '../../../sources/formats/geopackage.js';
import { GeoPackageWriter } from '../../../sources/formats/geopackage-writer.js';
import { readGpkgGeometry, readGpkgHeader, writeGpkgGeometry } from '../../../sources/formats/gpkg-blob.js';
import { InputFormatError } from '../../../sources/formats/input-error.js';
import { readWkb, writeWkb } from '../../../sources/formats/wkb.js';
import { REAL_SE_MUNICIPALITIES_GPKG } from '../../support/real-data.js';

const REAL_KOMMUNER = REAL_SE_MUNICIPALITIES_GPKG;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'nordprop-gpkg-'));
});

const square = (x: number, y: number, size: number) => [x, y, x + size, y, x + size, y + size, x, y + size, x, y];

/** A one-layer GeoPackage with the rows given (a geometry or a raw blob each). */
function fixture(name: string, rows: (Buffer | null | { type: 'MultiPolygon'; polygons: number[][][] })[], srsId = 3006): string {
  const file = path.join(dir, name);
  const writer = GeoPackageWriter.create(file, { table: 'byggnad', geometryColumn: 'geom', geometryType: 'MULTIPOLYGON', srsId, columns: [{ name: 'objektidentitet', type: 'TEXT' }] });
  rows.forEach((row, i) => writer.add([`id-${i + 1}`], row));
  writer.close();
  return file;
}

describe('GeoPackage reader on the real municipality file', () => {
  it('opens se-kommuner-3006.gpkg as SQLite and reads all 290 municipalities in EPSG:3006', () => {
    const gpkg = GeoPackage.open(REAL_KOMMUNER);
    try {
      expect(gpkg.hasGeoPackageApplicationId).toBe(true);
      expect(gpkg.featureLayers()).toEqual(['sveriges_kommuner_sf_simple']);
      const layer = gpkg.layer('sveriges_kommuner_sf_simple', 3006);
      expect(layer).toMatchObject({ geometryColumn: 'geom', geometryType: 'MULTIPOLYGON', crs: 'EPSG:3006', idColumn: 'fid' });
      const features = [...gpkg.features(layer, ['municipality_code', 'municipality_name'])];
      expect(features).toHaveLength(290);
      expect(features.every((f) => f.error === null && f.geometry?.type === 'MultiPolygon')).toBe(true);
      const stockholm = features.find((f) => f.attributes.municipality_code === '0180')!;
      expect(stockholm.attributes.municipality_name).toBe('Stockholm');
      // The blob's envelope is the geometry's own extent, in easting/northing order.
      const xs = stockholm.geometry!.type === 'MultiPolygon' ? stockholm.geometry!.polygons.flatMap((rings) => rings[0].filter((_, i) => i % 2 === 0)) : [];
      expect(stockholm.header!.envelope!.minX).toBeCloseTo(Math.min(...xs), 6);
      expect(stockholm.header!.envelope!.minX).toBeGreaterThan(600_000); // easting, not northing
      expect(stockholm.header!.envelope!.minY).toBeGreaterThan(6_500_000);
    } finally {
      gpkg.close();
    }
  });

  // The hash pass reads them first, on the worker's thread: reading every row for them stalled it
  // (450 ms for a quarter-national Byggnad file, seconds at national size).
  it('reads a layer\'s first and last fid from the ends of its index, not from its rows', () => {
    const gpkg = GeoPackage.open(REAL_KOMMUNER);
    try {
      const layer = gpkg.layer('sveriges_kommuner_sf_simple', 3006);
      const fids = new Database(REAL_KOMMUNER, { readonly: true });
      try {
        const all = fids.prepare('SELECT fid FROM sveriges_kommuner_sf_simple').pluck().all() as number[];
        expect(gpkg.fidBounds(layer)).toEqual({ first: Math.min(...all), last: Math.max(...all) });
        const plan = fids.prepare(`EXPLAIN QUERY PLAN ${fidBoundsSql(layer)}`).all() as { detail: string }[];
        expect(plan.map((step) => step.detail).filter((detail) => detail.startsWith('SCAN sveriges_kommuner_sf_simple'))).toEqual([]);
      } finally {
        fids.close();
      }
    } finally {
      gpkg.close();
    }
    const empty = GeoPackage.open(fixture('no-rows.gpkg', []));
    try {
      expect(empty.fidBounds(empty.layer('byggnad', 3006))).toBeNull();
    } finally {
      empty.close();
    }
  });

  it('reads only the rows a night keeps, by their fids, as the whole read gives them', () => {
    const gpkg = GeoPackage.open(REAL_KOMMUNER);
    try {
      const layer = gpkg.layer('sveriges_kommuner_sf_simple', 3006);
      const columns = ['municipality_code', 'municipality_name'];
      const keep = (fid: number) => fid % 7 === 3 || fid === 290;
      const kept = [...gpkg.features(layer, columns, keep)];
      const whole = [...gpkg.features(layer, columns)].filter((feature) => keep(feature.position));
      expect(kept.map((feature) => feature.position)).toEqual(whole.map((feature) => feature.position));
      expect(kept.length).toBeGreaterThan(40);
      expect(kept).toEqual(whole);
      expect([...gpkg.features(layer, columns, () => false)]).toEqual([]);
    } finally {
      gpkg.close();
    }
  });
});

describe('GeoPackage geometry blobs', () => {
  it('round-trips a multipolygon with an envelope, and a point without one', () => {
    const polygons = [[square(650000, 6580000, 10), [650002, 6580002, 650002, 6580004, 650004, 6580004, 650004, 6580002, 650002, 6580002]], [square(650100, 6580100, 5)]];
    const blob = writeGpkgGeometry(3006, { type: 'MultiPolygon', polygons });
    const { header, geometry } = readGpkgGeometry(blob);
    expect(header).toMatchObject({ srsId: 3006, littleEndian: true, empty: false, envelope: { minX: 650000, maxX: 650105, minY: 6580000, maxY: 6580105 } });
    expect(geometry).toEqual({ type: 'MultiPolygon', polygons });
    const point = readGpkgGeometry(writeGpkgGeometry(3006, { type: 'Point', points: [650000.5, 6580000.25] }));
    expect(point.header.envelope).toBeNull();
    expect(point.geometry).toEqual({ type: 'Point', points: [650000.5, 6580000.25] });
  });

  it('reads a big-endian header with an xyz envelope and big-endian ISO WKB with Z', () => {
    const header = Buffer.alloc(8 + 48);
    header.write('GP', 0, 'latin1');
    header[3] = 2 << 1; // big endian, envelope xyz
    header.writeInt32BE(3006, 4);
    [1, 2, 3, 4, 5, 6].forEach((v, i) => header.writeDoubleBE(v, 8 + i * 8));
    const wkb = Buffer.alloc(1 + 4 + 24);
    wkb[0] = 0;
    wkb.writeUInt32BE(1001, 1); // Point Z
    wkb.writeDoubleBE(650000, 5);
    wkb.writeDoubleBE(6580000, 13);
    wkb.writeDoubleBE(12.5, 21);
    const parsed = readGpkgGeometry(Buffer.concat([header, wkb]));
    expect(parsed.header).toMatchObject({ littleEndian: false, srsId: 3006, envelope: { minX: 1, maxX: 2, minY: 3, maxY: 4 }, wkbOffset: 56 });
    expect(parsed.geometry).toEqual({ type: 'Point', points: [650000, 6580000] });
  });

  it('refuses a wrong magic, a wrong version, an invalid envelope indicator and a truncated blob', () => {
    const good = writeGpkgGeometry(3006, { type: 'MultiPolygon', polygons: [[square(1, 1, 1)]] });
    const altered = (offset: number, byte: number) => Buffer.from(good).fill(byte, offset, offset + 1);
    expect(() => readGpkgHeader(altered(0, 0x58))).toThrow(/magic "GP"/);
    expect(() => readGpkgHeader(altered(2, 1))).toThrow(/version/);
    expect(() => readGpkgHeader(altered(3, 1 | (5 << 1)))).toThrow(/envelope contents indicator 5/);
    expect(() => readGpkgGeometry(good.subarray(0, good.length - 4))).toThrow(/WKB ends/);
    expect(() => readWkb(Buffer.from([1, 7, 0, 0, 0, 0, 0, 0, 0]))).toThrow(/GeometryCollection/);
    expect(readWkb(writeWkb({ type: 'Polygon', polygons: [[square(0, 0, 1)]] }))).toEqual({ type: 'Polygon', polygons: [[square(0, 0, 1)]] });
  });
});

describe('GeoPackage reader on malformed files', () => {
  it('names a missing layer and the layers there are', () => {
    const gpkg = GeoPackage.open(fixture('layers.gpkg', []));
    try {
      expect(() => gpkg.layer('registerenhetsomradesyta', 3006)).toThrow(new InputFormatError('layers.gpkg has no feature layer "registerenhetsomradesyta" (layers: byggnad)'));
    } finally {
      gpkg.close();
    }
  });

  it('refuses a layer in another CRS than SWEREF 99 TM', () => {
    const gpkg = GeoPackage.open(fixture('rt90.gpkg', [{ type: 'MultiPolygon', polygons: [[square(1628000, 6580000, 10)]] }], 3021));
    try {
      expect(() => gpkg.layer('byggnad', 3006)).toThrow(/layer "byggnad" is in EPSG:3021, expected EPSG:3006/);
    } finally {
      gpkg.close();
    }
  });

  it('refuses a file that is not SQLite, and an SQLite file without the gpkg tables', () => {
    const text = path.join(dir, 'not.gpkg');
    writeFileSync(text, 'objektidentitet;geom\n1;POINT(1 2)\n');
    expect(() => GeoPackage.open(text)).toThrow(/not.gpkg is not a GeoPackage: it is not an SQLite database file/);
    const plain = path.join(dir, 'plain.sqlite');
    const db = new Database(plain);
    db.exec('CREATE TABLE byggnad (fid INTEGER PRIMARY KEY, geom BLOB)');
    db.close();
    expect(() => GeoPackage.open(plain)).toThrow(/is an SQLite file but not a GeoPackage: it has no gpkg_contents, gpkg_geometry_columns, gpkg_spatial_ref_sys/);
  });

  it('reports row by row a bad blob, the empty flag, a missing geometry and a blob in another CRS', () => {
    const empty = writeGpkgGeometry(3006, { type: 'MultiPolygon', polygons: [] });
    const wrongMagic = Buffer.from(writeGpkgGeometry(3006, { type: 'MultiPolygon', polygons: [[square(1, 1, 1)]] })).fill(0x00, 0, 2);
    const otherCrs = writeGpkgGeometry(3021, { type: 'MultiPolygon', polygons: [[square(1, 1, 1)]] });
    const file = fixture('rows.gpkg', [{ type: 'MultiPolygon', polygons: [[square(650000, 6580000, 10)]] }, empty, wrongMagic, null, otherCrs, Buffer.from('GP\0\x01', 'latin1')]);
    const gpkg = GeoPackage.open(file);
    try {
      const rows = [...gpkg.features(gpkg.layer('byggnad', 3006))];
      expect(rows.map((r) => [r.position, r.attributes.objektidentitet, r.error])).toEqual([
        [1, 'id-1', null],
        [2, 'id-2', 'empty geometry (the blob header sets the empty flag)'],
        [3, 'id-3', 'unreadable geometry blob: geometry blob starts with 0x0000, not the GeoPackage magic "GP"'],
        [4, 'id-4', 'no geometry (NULL)'],
        [5, 'id-5', "geometry srs_id 3021 differs from the layer's 3006 (EPSG:3006)"],
        [6, 'id-6', 'unreadable geometry blob: geometry blob of 4 bytes is shorter than the 8-byte GeoPackage header'],
      ]);
    } finally {
      gpkg.close();
    }
  });
});
