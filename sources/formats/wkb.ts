/**
 * Well-Known Binary (ISO 19125 / SQL-MM), as GeoPackage geometry blobs carry it after their
 * header: read into flat coordinate arrays ([x0, y0, x1, y1, …] per ring or line), the form
 * `sources/geo` reprojects and measures, and written back for the sample GeoPackages.
 *
 * Hand-written rather than `wkx`: that library's last release is from 2020 and it allocates an
 * object per vertex, and this runs for every vertex of millions of building footprints. WKB is
 * a small, fixed format: a byte-order byte, a uint32 type (ISO: +1000 Z, +2000 M, +3000 ZM;
 * EWKB's high flag bits are accepted too), then counts and IEEE doubles. Z and M ordinates are
 * read past and dropped: the registers are two-dimensional.
 */

export type WkbGeometry =
  | { type: 'Point'; points: number[] }
  | { type: 'MultiPoint'; points: number[] }
  | { type: 'LineString'; lines: number[][] }
  | { type: 'MultiLineString'; lines: number[][] }
  | { type: 'Polygon'; polygons: number[][][] }
  | { type: 'MultiPolygon'; polygons: number[][][] };

export class WkbError extends Error {}

const TYPE_NAMES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'] as const;

class Cursor {
  offset: number;
  constructor(readonly bytes: Buffer, offset: number) {
    this.offset = offset;
  }
  need(count: number): void {
    if (this.offset + count > this.bytes.length) throw new WkbError(`WKB ends after ${this.bytes.length} bytes, ${this.offset + count} needed`);
  }
  uint32(little: boolean): number {
    this.need(4);
    const value = little ? this.bytes.readUInt32LE(this.offset) : this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  double(little: boolean): number {
    this.need(8);
    const value = little ? this.bytes.readDoubleLE(this.offset) : this.bytes.readDoubleBE(this.offset);
    this.offset += 8;
    return value;
  }
}

interface Header { little: boolean; kind: number; dims: number }

function readHeader(cursor: Cursor): Header {
  cursor.need(1);
  const order = cursor.bytes[cursor.offset++];
  if (order !== 0 && order !== 1) throw new WkbError(`WKB byte-order byte is ${order}, not 0 or 1`);
  const little = order === 1;
  const raw = cursor.uint32(little);
  // EWKB (PostGIS) flags: Z 0x80000000, M 0x40000000, SRID 0x20000000.
  const ewkbZ = (raw & 0x80000000) !== 0, ewkbM = (raw & 0x40000000) !== 0;
  if (raw & 0x20000000) cursor.uint32(little);
  const iso = raw & 0x0fffffff;
  const kind = iso % 1000;
  const isoDims = Math.floor(iso / 1000);
  if (kind < 1 || kind > 7 || isoDims > 3) throw new WkbError(`unknown WKB geometry type ${raw}`);
  const hasZ = ewkbZ || isoDims === 1 || isoDims === 3, hasM = ewkbM || isoDims === 2 || isoDims === 3;
  return { little, kind, dims: 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0) };
}

function readPoints(cursor: Cursor, header: Header, count: number, out: number[]): void {
  cursor.need(count * header.dims * 8);
  for (let i = 0; i < count; i++) {
    out.push(cursor.double(header.little), cursor.double(header.little));
    for (let extra = 2; extra < header.dims; extra++) cursor.double(header.little);
  }
}

function readRings(cursor: Cursor, header: Header): number[][] {
  const rings: number[][] = [];
  const count = cursor.uint32(header.little);
  for (let r = 0; r < count; r++) {
    const ring: number[] = [];
    readPoints(cursor, header, cursor.uint32(header.little), ring);
    rings.push(ring);
  }
  return rings;
}

function expectPart(cursor: Cursor, kind: number, parent: string): Header {
  const header = readHeader(cursor);
  if (header.kind !== kind) throw new WkbError(`${parent} holds a ${TYPE_NAMES[header.kind]}, expected ${TYPE_NAMES[kind]}`);
  return header;
}

/** Reads one geometry starting at `offset`. An empty point (NaN coordinates) has no points. */
export function readWkb(bytes: Buffer, offset = 0): WkbGeometry {
  const cursor = new Cursor(bytes, offset);
  const header = readHeader(cursor);
  switch (header.kind) {
    case 1: {
      const points: number[] = [];
      readPoints(cursor, header, 1, points);
      return { type: 'Point', points: Number.isNaN(points[0]) && Number.isNaN(points[1]) ? [] : points };
    }
    case 2: {
      const line: number[] = [];
      readPoints(cursor, header, cursor.uint32(header.little), line);
      return { type: 'LineString', lines: [line] };
    }
    case 3:
      return { type: 'Polygon', polygons: [readRings(cursor, header)].filter((rings) => rings.length > 0) };
    case 4: {
      const points: number[] = [];
      const count = cursor.uint32(header.little);
      for (let i = 0; i < count; i++) readPoints(cursor, expectPart(cursor, 1, 'MultiPoint'), 1, points);
      return { type: 'MultiPoint', points };
    }
    case 5: {
      const lines: number[][] = [];
      const count = cursor.uint32(header.little);
      for (let i = 0; i < count; i++) {
        const part = expectPart(cursor, 2, 'MultiLineString');
        const line: number[] = [];
        readPoints(cursor, part, cursor.uint32(part.little), line);
        lines.push(line);
      }
      return { type: 'MultiLineString', lines };
    }
    case 6: {
      const polygons: number[][][] = [];
      const count = cursor.uint32(header.little);
      for (let i = 0; i < count; i++) {
        const rings = readRings(cursor, expectPart(cursor, 3, 'MultiPolygon'));
        if (rings.length) polygons.push(rings);
      }
      return { type: 'MultiPolygon', polygons };
    }
    default:
      throw new WkbError('a GeometryCollection is not a geometry any register layer uses');
  }
}

/** Little-endian 2D WKB of a point, or of polygons as a MultiPolygon (`multi`) or one Polygon. */
export function writeWkb(geometry: WkbGeometry): Buffer {
  let size = 5;
  if (geometry.type === 'Point') size += 16;
  else if (geometry.type === 'Polygon' || geometry.type === 'MultiPolygon') {
    const polygonSize = (rings: number[][]) => 4 + rings.reduce((sum, ring) => sum + 4 + ring.length * 8, 0);
    size += geometry.type === 'Polygon' ? polygonSize(geometry.polygons[0] ?? []) : 4 + geometry.polygons.reduce((sum, rings) => sum + 5 + polygonSize(rings), 0);
  } else throw new WkbError(`writing ${geometry.type} is not needed by any sample register`);
  const out = Buffer.alloc(size);
  let at = 0;
  const header = (kind: number) => {
    out[at] = 1;
    out.writeUInt32LE(kind, at + 1);
    at += 5;
  };
  const uint32 = (value: number) => {
    out.writeUInt32LE(value, at);
    at += 4;
  };
  const doubles = (values: number[]) => {
    for (const value of values) {
      out.writeDoubleLE(value, at);
      at += 8;
    }
  };
  const polygon = (rings: number[][]) => {
    uint32(rings.length);
    for (const ring of rings) {
      uint32(ring.length / 2);
      doubles(ring);
    }
  };
  if (geometry.type === 'Point') {
    header(1);
    doubles(geometry.points.length ? geometry.points : [NaN, NaN]);
  } else if (geometry.type === 'Polygon') {
    header(3);
    polygon(geometry.polygons[0] ?? []);
  } else {
    header(6);
    uint32(geometry.polygons.length);
    for (const rings of geometry.polygons) {
      header(3);
      polygon(rings);
    }
  }
  return out;
}
