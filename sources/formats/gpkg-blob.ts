/**
 * The GeoPackage geometry blob (OGC 12-128r18 §2.1.3): a header, then standard WKB.
 *
 *   bytes 0-1  magic `GP`
 *   byte  2    version (0 = version 1)
 *   byte  3    flags: bit 0 byte order of the header (1 little endian), bits 1-3 envelope
 *              contents (0 none, 1 xy, 2 xyz, 3 xym, 4 xyzm; 5-7 invalid), bit 4 empty
 *              geometry, bit 5 extended GeoPackageBinary, bits 6-7 reserved (0)
 *   bytes 4-7  srs_id (int32)
 *   envelope   0, 4, 6 or 8 doubles: minx, maxx, miny, maxy [, minz, maxz] [, minm, maxm]
 *   WKB        the geometry, with its own byte-order byte
 *
 * Parsed by hand: no maintained JavaScript library reads the header alone, and it is a dozen
 * bytes whose every field we check (a wrong SRID or an empty flag must reach the rejects).
 */
import { readWkb, writeWkb, type WkbGeometry } from './wkb.js';

export class GpkgBlobError extends Error {}

export interface GpkgEnvelope {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

export interface GpkgGeometryHeader {
  version: number;
  littleEndian: boolean;
  srsId: number;
  /** The envelope's x/y bounds when the blob carries one. */
  envelope: GpkgEnvelope | null;
  empty: boolean;
  extended: boolean;
  /** Where the WKB starts. */
  wkbOffset: number;
}

const ENVELOPE_DOUBLES = [0, 4, 6, 6, 8];

export function readGpkgHeader(blob: Buffer): GpkgGeometryHeader {
  if (blob.length < 8) throw new GpkgBlobError(`geometry blob of ${blob.length} bytes is shorter than the 8-byte GeoPackage header`);
  if (blob[0] !== 0x47 || blob[1] !== 0x50) throw new GpkgBlobError(`geometry blob starts with 0x${blob.subarray(0, 2).toString('hex')}, not the GeoPackage magic "GP"`);
  const version = blob[2];
  if (version !== 0) throw new GpkgBlobError(`geometry blob version ${version} is not GeoPackage version 1 (0)`);
  const flags = blob[3];
  if (flags & 0xc0) throw new GpkgBlobError(`geometry blob flags 0x${flags.toString(16)} set the reserved bits 6-7`);
  const littleEndian = (flags & 1) === 1;
  const envelopeKind = (flags >> 1) & 7;
  if (envelopeKind > 4) throw new GpkgBlobError(`geometry blob envelope contents indicator ${envelopeKind} is invalid (0-4)`);
  const srsId = littleEndian ? blob.readInt32LE(4) : blob.readInt32BE(4);
  const doubles = ENVELOPE_DOUBLES[envelopeKind];
  const wkbOffset = 8 + doubles * 8;
  if (blob.length < wkbOffset) throw new GpkgBlobError(`geometry blob of ${blob.length} bytes ends inside its ${doubles}-double envelope`);
  const read = (i: number) => (littleEndian ? blob.readDoubleLE(8 + i * 8) : blob.readDoubleBE(8 + i * 8));
  const envelope = doubles ? { minX: read(0), maxX: read(1), minY: read(2), maxY: read(3) } : null;
  return { version, littleEndian, srsId, envelope, empty: (flags & 0x10) !== 0, extended: (flags & 0x20) !== 0, wkbOffset };
}

export interface GpkgGeometry {
  header: GpkgGeometryHeader;
  /** Null when the blob is flagged empty. */
  geometry: WkbGeometry | null;
}

/** Header and geometry of a blob; throws GpkgBlobError/WkbError for a blob that cannot be read. */
export function readGpkgGeometry(blob: Buffer): GpkgGeometry {
  const header = readGpkgHeader(blob);
  if (header.extended) throw new GpkgBlobError('extended GeoPackageBinary geometry (flag bit 5) is not a standard geometry');
  if (header.empty) return { header, geometry: null };
  return { header, geometry: readWkb(blob, header.wkbOffset) };
}

function envelopeOf(geometry: WkbGeometry): number[] {
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  const visit = (flat: number[]) => {
    for (let i = 0; i < flat.length; i += 2) {
      if (flat[i] < minX) minX = flat[i];
      if (flat[i] > maxX) maxX = flat[i];
      if (flat[i + 1] < minY) minY = flat[i + 1];
      if (flat[i + 1] > maxY) maxY = flat[i + 1];
    }
  };
  if ('points' in geometry) visit(geometry.points);
  else if ('lines' in geometry) geometry.lines.forEach(visit);
  else for (const rings of geometry.polygons) rings.forEach(visit);
  return [minX, maxX, minY, maxY];
}

/**
 * A little-endian blob as GDAL writes one: an xy envelope for anything but a point (points
 * carry none, as the spec recommends), the empty flag for a geometry without coordinates.
 */
export function writeGpkgGeometry(srsId: number, geometry: WkbGeometry): Buffer {
  const empty = 'points' in geometry ? geometry.points.length === 0 : 'polygons' in geometry ? geometry.polygons.length === 0 : false;
  const withEnvelope = geometry.type !== 'Point' && !empty;
  const header = Buffer.alloc(8 + (withEnvelope ? 32 : 0));
  header.write('GP', 0, 'latin1');
  header[2] = 0;
  header[3] = 1 | (withEnvelope ? 1 << 1 : 0) | (empty ? 0x10 : 0);
  header.writeInt32LE(srsId, 4);
  if (withEnvelope) envelopeOf(geometry).forEach((value, i) => header.writeDoubleLE(value, 8 + i * 8));
  return Buffer.concat([header, writeWkb(geometry)]);
}
