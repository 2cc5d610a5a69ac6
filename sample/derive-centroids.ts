/**
 * One-off: derives `sample/data/no-municipality-centroids.csv` (kommunenummer,lon,lat) from the
 * 2024 municipality boundaries (robhop/fylker-og-kommuner `Kommuner-S.geojson`, CC BY 4.0
 * Kartverket). The generator centres each municipality's block of sample parcels on this point.
 *
 * The point is guaranteed to lie inside the municipality: it is the candidate farthest from the
 * boundary (a coarse pole of inaccessibility, so a block of parcels around it stays inside as far
 * as possible), chosen among turf `pointOnFeature` and a refined grid of interior points.
 *
 * Run once: `npx tsx sample/derive-centroids.ts [path/to/no-kommuner-2024-S.geojson]`
 * The output file is committed; the geojson is not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { booleanPointInPolygon, pointOnFeature } from '@turf/turf';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';
import { transformTo } from '../sources/geo/reproject.js';

type Area = Feature<Polygon | MultiPolygon, { kommunenummer: string; kommunenavn: string }>;

const DEFAULT_INPUT = '/work/shared/data/real/no-kommuner-2024-S.geojson';
const OUTPUT = fileURLToPath(new URL('./data/no-municipality-centroids.csv', import.meta.url));
const toUtm = transformTo(4326, 25833);

/** All boundary segments of the area in UTM33 metres, flattened to [x1, y1, x2, y2, ...]. */
function boundarySegments(area: Area): Float64Array {
  const polygons: Position[][][] =
    area.geometry.type === 'Polygon' ? [area.geometry.coordinates] : area.geometry.coordinates;
  const out: number[] = [];
  for (const polygon of polygons) {
    for (const ring of polygon) {
      const projected = ring.map(([lon, lat]) => toUtm(lon, lat));
      for (let i = 1; i < projected.length; i++) {
        out.push(projected[i - 1][0], projected[i - 1][1], projected[i][0], projected[i][1]);
      }
    }
  }
  return Float64Array.from(out);
}

function distanceToBoundary(segments: Float64Array, x: number, y: number): number {
  let best = Infinity;
  for (let i = 0; i < segments.length; i += 4) {
    const ax = segments[i], ay = segments[i + 1], bx = segments[i + 2], by = segments[i + 3];
    const dx = bx - ax, dy = by - ay;
    const lengthSquared = dx * dx + dy * dy;
    let t = lengthSquared === 0 ? 0 : ((x - ax) * dx + (y - ay) * dy) / lengthSquared;
    t = Math.max(0, Math.min(1, t));
    const ex = ax + t * dx - x, ey = ay + t * dy - y;
    const d = ex * ex + ey * ey;
    if (d < best) best = d;
  }
  return Math.sqrt(best);
}

interface Candidate { lon: number; lat: number; clearance: number }

function innermostPoint(area: Area): Candidate {
  const segments = boundarySegments(area);
  const score = (lon: number, lat: number): Candidate | null => {
    if (!booleanPointInPolygon([lon, lat], area)) return null;
    const [x, y] = toUtm(lon, lat);
    return { lon, lat, clearance: distanceToBoundary(segments, x, y) };
  };
  const [seedLon, seedLat] = pointOnFeature(area).geometry.coordinates;
  let best = score(seedLon, seedLat) ?? { lon: seedLon, lat: seedLat, clearance: 0 };

  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  const polygons = area.geometry.type === 'Polygon' ? [area.geometry.coordinates] : area.geometry.coordinates;
  for (const polygon of polygons) for (const [lon, lat] of polygon[0]) {
    minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
  }
  const steps = 24;
  let stepLon = (maxLon - minLon) / steps, stepLat = (maxLat - minLat) / steps;
  for (let i = 0; i <= steps; i++) for (let j = 0; j <= steps; j++) {
    const candidate = score(minLon + i * stepLon, minLat + j * stepLat);
    if (candidate && candidate.clearance > best.clearance) best = candidate;
  }
  // Refine around the best point with a shrinking local grid.
  for (let round = 0; round < 4; round++) {
    const centre = best;
    for (let i = -4; i <= 4; i++) for (let j = -4; j <= 4; j++) {
      const candidate = score(centre.lon + (i * stepLon) / 4, centre.lat + (j * stepLat) / 4);
      if (candidate && candidate.clearance > best.clearance) best = candidate;
    }
    stepLon /= 4; stepLat /= 4;
  }
  return best;
}

function main(): void {
  const input = process.argv[2] ?? DEFAULT_INPUT;
  const collection = JSON.parse(readFileSync(input, 'utf8')) as { features: Area[] };
  const rows: string[] = [];
  const clearances: number[] = [];
  const areas = [...collection.features].sort((a, b) => a.properties.kommunenummer.localeCompare(b.properties.kommunenummer));
  for (const area of areas) {
    const point = innermostPoint(area);
    // Rounding to 5 decimals (about a metre) must not push the point outside.
    const lon = Number(point.lon.toFixed(5)), lat = Number(point.lat.toFixed(5));
    if (!booleanPointInPolygon([lon, lat], area)) throw new Error(`${area.properties.kommunenummer}: rounded point fell outside`);
    rows.push(`${area.properties.kommunenummer},${lon.toFixed(5)},${lat.toFixed(5)}`);
    clearances.push(point.clearance);
  }
  writeFileSync(OUTPUT, `kommunenummer,lon,lat\n${rows.join('\n')}\n`);
  clearances.sort((a, b) => a - b);
  const under = (metres: number) => clearances.filter((c) => c < metres).length;
  console.log(
    `wrote ${rows.length} points to ${OUTPUT}; clearance to boundary: min ${clearances[0].toFixed(0)} m, ` +
      `median ${clearances[clearances.length >> 1].toFixed(0)} m, ${under(1000)} under 1 km, ${under(2000)} under 2 km`,
  );
}

main();
