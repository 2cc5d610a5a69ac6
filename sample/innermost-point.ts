/**
 * The point of a municipality farthest from its boundary (a coarse pole of inaccessibility),
 * for the one-off scripts that derive where each country's sample places its parcels
 * (sample/derive-centroids.ts for Norway, sample/se/derive-anchors.ts for Sweden).
 *
 * Candidates are turf `pointOnFeature` and a grid of interior points refined around the best
 * one; distances are measured in a metric projection (the country's own). Hand-written because
 * turf has no pole-of-inaccessibility, and this runs once per country, not in the pipeline.
 */
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { pointOnFeature } from '@turf/point-on-feature';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';

export type MunicipalityArea = Feature<Polygon | MultiPolygon>;
/** WGS84 lon/lat to projected metres. */
export type ToMetres = (lon: number, lat: number) => number[];

export interface InnermostPoint {
  lon: number;
  lat: number;
  /** The point in the metric projection. */
  x: number;
  y: number;
  /** Metres to the nearest boundary segment. */
  clearance: number;
}

/** All boundary segments of the area in metres, flattened to [x1, y1, x2, y2, ...]. */
function boundarySegments(area: MunicipalityArea, toMetres: ToMetres): Float64Array {
  const polygons: Position[][][] = area.geometry.type === 'Polygon' ? [area.geometry.coordinates] : area.geometry.coordinates;
  const out: number[] = [];
  for (const polygon of polygons) for (const ring of polygon) {
    const projected = ring.map(([lon, lat]) => toMetres(lon, lat));
    for (let i = 1; i < projected.length; i++) out.push(projected[i - 1][0], projected[i - 1][1], projected[i][0], projected[i][1]);
  }
  return Float64Array.from(out);
}

function distanceToBoundary(segments: Float64Array, x: number, y: number): number {
  let best = Infinity;
  for (let i = 0; i < segments.length; i += 4) {
    const ax = segments[i], ay = segments[i + 1], dx = segments[i + 2] - ax, dy = segments[i + 3] - ay;
    const lengthSquared = dx * dx + dy * dy;
    const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / lengthSquared));
    const ex = ax + t * dx - x, ey = ay + t * dy - y;
    best = Math.min(best, ex * ex + ey * ey);
  }
  return Math.sqrt(best);
}

export function innermostPoint(area: MunicipalityArea, toMetres: ToMetres): InnermostPoint {
  const segments = boundarySegments(area, toMetres);
  const score = (lon: number, lat: number): InnermostPoint | null => {
    if (!booleanPointInPolygon([lon, lat], area)) return null;
    const [x, y] = toMetres(lon, lat);
    return { lon, lat, x, y, clearance: distanceToBoundary(segments, x, y) };
  };
  const [seedLon, seedLat] = pointOnFeature(area).geometry.coordinates;
  const [seedX, seedY] = toMetres(seedLon, seedLat);
  let best = score(seedLon, seedLat) ?? { lon: seedLon, lat: seedLat, x: seedX, y: seedY, clearance: 0 };
  const consider = (lon: number, lat: number) => {
    const candidate = score(lon, lat);
    if (candidate && candidate.clearance > best.clearance) best = candidate;
  };

  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  const polygons = area.geometry.type === 'Polygon' ? [area.geometry.coordinates] : area.geometry.coordinates;
  for (const polygon of polygons) for (const [lon, lat] of polygon[0]) {
    minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
  }
  const steps = 24;
  let stepLon = (maxLon - minLon) / steps, stepLat = (maxLat - minLat) / steps;
  for (let i = 0; i <= steps; i++) for (let j = 0; j <= steps; j++) consider(minLon + i * stepLon, minLat + j * stepLat);
  // Refine around the best point with a shrinking local grid.
  for (let round = 0; round < 4; round++) {
    const { lon, lat } = best;
    for (let i = -4; i <= 4; i++) for (let j = -4; j <= 4; j++) consider(lon + (i * stepLon) / 4, lat + (j * stepLat) / 4);
    stepLon /= 4; stepLat /= 4;
  }
  return best;
}
