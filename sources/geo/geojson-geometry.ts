import { transformTo, type PointTransform } from './reproject.js';
import { multiPolygonEwkt } from './ewkt.js';
import { planarArea } from './planar-area.js';
import { degrees7 } from './degrees.js';

/**
 * GeoJSON geometries as the registers deliver them (a plan polygon, a municipality boundary, a
 * plot's position), checked and written as EWKT in EPSG:4326. What PostGIS can repair
 * (self-intersections) is left to the staged-polygon repair; what it cannot read (an open
 * ring, a ring of three points, a coordinate that is not a number, a point outside the register's country
 * because the CRS or the axis order is wrong) is refused here with the reason.
 */

export class GeometryError extends Error {}

/** Where a register's geometry must lie, lon/lat, generous: catches swapped axes and a wrong CRS. */
export interface CountryEnvelope {
  name: string;
  west: number;
  east: number;
  south: number;
  north: number;
}

/** Norway with Svalbard and Jan Mayen. */
export const NORWAY_ENVELOPE: CountryEnvelope = { name: 'Norway', west: -10, east: 35, south: 57, north: 82 };
/** Sweden. */
export const SWEDEN_ENVELOPE: CountryEnvelope = { name: 'Sweden', west: 10, east: 24.5, south: 55, north: 69.5 };
/** Projected CRSs in metres (the UTM zones Norway uses, SWEREF 99 TM): planar areas are measured in them. */
const METRIC_SRIDS = new Set([25832, 25833, 25835, 3006]);

type Position = unknown;

function flatRing(ring: unknown, where: string, check: PointTransform, envelope: CountryEnvelope): number[] {
  if (!Array.isArray(ring)) throw new GeometryError(`${where} is not an array of positions`);
  if (ring.length < 4) throw new GeometryError(`${where} has ${ring.length} positions, a closed ring needs at least 4`);
  const flat: number[] = [];
  ring.forEach((position: Position, i) => {
    if (!Array.isArray(position) || position.length < 2 || typeof position[0] !== 'number' || typeof position[1] !== 'number' || !Number.isFinite(position[0]) || !Number.isFinite(position[1])) {
      throw new GeometryError(`${where} position ${i} is not a pair of finite numbers: ${JSON.stringify(position)}`);
    }
    flat.push(position[0], position[1]);
  });
  const n = flat.length;
  if (flat[0] !== flat[n - 2] || flat[1] !== flat[n - 1]) throw new GeometryError(`${where} is not closed (first and last positions differ)`);
  for (let i = 0; i < n; i += 2) insideEnvelope(check(flat[i], flat[i + 1]), `${where} position ${i / 2}`, envelope);
  return flat;
}

function insideEnvelope([lon, lat]: [number, number], where: string, e: CountryEnvelope): void {
  if (!(lon >= e.west && lon <= e.east && lat >= e.south && lat <= e.north)) {
    throw new GeometryError(`${where} lies outside ${e.name} (${lon.toFixed(5)}, ${lat.toFixed(5)} after reprojection): wrong CRS or axis order?`);
  }
}

export interface StagedPolygons {
  /** EWKT MultiPolygon in EPSG:4326. */
  ewkt: string;
  /** Planar area in the source's UTM zone, or null for a geographic source (measured in PostGIS). */
  areaM2: number | null;
}

/** A GeoJSON Polygon or MultiPolygon in `srid` (x = easting or longitude) as a staged MultiPolygon, inside `envelope`. */
export function polygonsFromGeoJson(geometry: unknown, srid: number, envelope: CountryEnvelope = NORWAY_ENVELOPE): StagedPolygons {
  const transform = transformTo(srid);
  if (!geometry || typeof geometry !== 'object') throw new GeometryError('geometry is missing');
  const { type, coordinates } = geometry as { type?: unknown; coordinates?: unknown };
  let polygonList: unknown[];
  if (type === 'Polygon') polygonList = [coordinates];
  else if (type === 'MultiPolygon' && Array.isArray(coordinates)) polygonList = coordinates;
  else throw new GeometryError(`geometry type ${JSON.stringify(type)} is not a Polygon or MultiPolygon`);
  if (!polygonList.length) throw new GeometryError('MultiPolygon has no polygons');
  const polygons = polygonList.map((rings, p) => {
    if (!Array.isArray(rings) || !rings.length) throw new GeometryError(`polygon ${p} has no rings`);
    return rings.map((ring, r) => flatRing(ring, `polygon ${p} ring ${r}`, transform, envelope));
  });
  return {
    ewkt: multiPolygonEwkt(polygons, transform),
    areaM2: METRIC_SRIDS.has(srid) ? Math.round(planarArea(polygons) * 100) / 100 : null,
  };
}

/** A GeoJSON Point in `srid` as EWKT in EPSG:4326. */
export function pointFromGeoJson(geometry: unknown, srid: number): string {
  const { type, coordinates } = (geometry ?? {}) as { type?: unknown; coordinates?: unknown };
  if (type !== 'Point') throw new GeometryError(`geometry type ${JSON.stringify(type)} is not a Point`);
  if (!Array.isArray(coordinates) || coordinates.length < 2 || !coordinates.slice(0, 2).every((c) => typeof c === 'number' && Number.isFinite(c))) {
    throw new GeometryError(`Point coordinates ${JSON.stringify(coordinates)} are not a pair of finite numbers`);
  }
  const [lon, lat] = transformTo(srid)(coordinates[0] as number, coordinates[1] as number);
  insideEnvelope([lon, lat], 'Point', NORWAY_ENVELOPE);
  return `SRID=4326;POINT(${degrees7(lon)} ${degrees7(lat)})`;
}
