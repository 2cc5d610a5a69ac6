import proj4 from 'proj4';

/**
 * Coordinate reference systems the registers deliver, defined once so every reader agrees.
 * ETRS89 and WGS84 differ by well under a metre in the Nordics; like PROJ's default
 * EPSG:4258→4326 (a null transformation), we treat them as the same datum.
 */
const DEFINITIONS: Record<number, string> = {
  4326: '+proj=longlat +datum=WGS84 +no_defs',
  4258: '+proj=longlat +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +no_defs',
  25832: '+proj=utm +zone=32 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs',
  25833: '+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs',
  25835: '+proj=utm +zone=35 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs',
  3006: '+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs',
};

for (const [code, definition] of Object.entries(DEFINITIONS)) proj4.defs(`EPSG:${code}`, definition);

export const SUPPORTED_SRIDS = Object.keys(DEFINITIONS).map(Number);

export class UnknownCrsError extends Error {}

export type PointTransform = (x: number, y: number) => [number, number];

const cache = new Map<string, PointTransform>();

/** Returns a function mapping easting/northing (or lon/lat) in `fromSrid` to WGS84 lon/lat. */
export function transformTo(fromSrid: number, toSrid = 4326): PointTransform {
  const key = `${fromSrid}>${toSrid}`;
  const cached = cache.get(key);
  if (cached) return cached;
  if (!(fromSrid in DEFINITIONS)) throw new UnknownCrsError(`EPSG:${fromSrid} is not a supported coordinate reference system`);
  if (!(toSrid in DEFINITIONS)) throw new UnknownCrsError(`EPSG:${toSrid} is not a supported coordinate reference system`);
  let transform: PointTransform;
  if ((fromSrid === 4258 || fromSrid === 4326) && (toSrid === 4258 || toSrid === 4326)) {
    transform = (x, y) => [x, y];
  } else {
    const converter = proj4(`EPSG:${fromSrid}`, `EPSG:${toSrid}`);
    transform = (x, y) => converter.forward([x, y]) as [number, number];
  }
  cache.set(key, transform);
  return transform;
}

/** Reads an EPSG code from the forms files use: `25833`, `EPSG:25833`, `urn:ogc:def:crs:EPSG::25833`, `http://www.opengis.net/def/crs/EPSG/0/25833`. */
export function parseSrid(text: string | null | undefined): number {
  const match = /(?:^|[:/])(\d{4,5})\s*$/.exec(String(text ?? '').trim());
  if (!match) throw new UnknownCrsError(`"${text}" does not name an EPSG coordinate reference system`);
  return Number(match[1]);
}

/**
 * True when coordinates written in this CRS reference put latitude first: the URN and URL
 * forms of geographic CRSs follow EPSG axis order (lat, lon); the short `EPSG:4258` form is
 * read lon/lat by long-standing convention. Projected ETRS89/UTM and SWEREF 99 TM are E, N.
 */
export function isLatitudeFirst(srsName: string, srid: number): boolean {
  const geographic = srid === 4258 || srid === 4326;
  return geographic && /urn:|opengis\.net/i.test(srsName);
}
