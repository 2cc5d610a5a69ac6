import { parseSrid } from '../geo/reproject.js';
import type { WkbGeometry } from '../formats/wkb.js';

/**
 * A feature from Lantmäteriet's OGC API – Features (e.g. Fastighetsindelning Direkt,
 * `…/ogc-features/v1/fastighetsindelning/collections/registerenhetsomradesytor/items`).
 *
 * OGC API – Features Part 2 answers in the CRS's own axis order when a `crs` is requested (the
 * response's `Content-Crs` header names it): for EPSG:3006 that is northing, easting, and for
 * EPSG:4326 latitude, longitude. Without one (CRS84) it is longitude, latitude. The GeoPackages
 * are easting, northing; this turns an API feature into that same order, so one set of
 * readers and reprojections serves both.
 */

export interface OgcFeature {
  srid: number;
  /** x = easting (or longitude), y = northing (or latitude). */
  geometry: WkbGeometry;
  properties: Record<string, unknown>;
}

/** CRSs whose EPSG definition puts the northing or latitude first. */
const NORTHING_FIRST = new Set([3006, 4326, 4258, 3021]);
const CRS84 = /OGC\/1\.3\/CRS84|CRS84$/i;

function sridOf(contentCrs: string | null | undefined): { srid: number; swap: boolean } {
  const crs = (contentCrs ?? '').trim().replace(/^<|>$/g, '');
  if (crs === '' || CRS84.test(crs)) return { srid: 4326, swap: false };
  const srid = parseSrid(crs);
  return { srid, swap: NORTHING_FIRST.has(srid) };
}

function flat(positions: unknown, swap: boolean, where: string): number[] {
  if (!Array.isArray(positions)) throw new Error(`${where} is not an array of positions`);
  const out: number[] = [];
  for (const position of positions) {
    if (!Array.isArray(position) || typeof position[0] !== 'number' || typeof position[1] !== 'number') throw new Error(`${where} holds ${JSON.stringify(position)}, not a position`);
    if (swap) out.push(position[1], position[0]);
    else out.push(position[0], position[1]);
  }
  return out;
}

/** `contentCrs`: the response's Content-Crs header (with or without its angle brackets). */
export function readOgcFeature(feature: unknown, contentCrs: string | null | undefined): OgcFeature {
  const { srid, swap } = sridOf(contentCrs);
  const { geometry, properties } = (feature ?? {}) as { geometry?: { type?: string; coordinates?: unknown }; properties?: Record<string, unknown> };
  if (!geometry?.type) throw new Error('the feature has no geometry');
  const c = geometry.coordinates as unknown[];
  let result: WkbGeometry;
  switch (geometry.type) {
    case 'Point':
      result = { type: 'Point', points: flat([c], swap, 'Point') };
      break;
    case 'Polygon':
      result = { type: 'Polygon', polygons: [c.map((ring, r) => flat(ring, swap, `ring ${r}`))] };
      break;
    case 'MultiPolygon':
      result = { type: 'MultiPolygon', polygons: c.map((rings, p) => (rings as unknown[]).map((ring, r) => flat(ring, swap, `polygon ${p} ring ${r}`))) };
      break;
    default:
      throw new Error(`geometry type ${geometry.type} is not a point or polygon`);
  }
  return { srid, geometry: result, properties: properties ?? {} };
}
