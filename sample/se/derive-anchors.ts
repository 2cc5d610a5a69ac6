/**
 * One-off: derives `sample/data/se-municipality-anchors.csv` (kommunkod, easting, northing,
 * clearance in EPSG:3006 metres) from the real municipality boundaries
 * (`/work/shared/data/real/se-kommuner.geojson`, okfse/sweden-geojson, WGS84). The Swedish
 * sample centres each municipality's grid of properties on its anchor and keeps the whole grid
 * within `clearance` of it, so every sample property lies inside its real municipality.
 *
 * The anchor is the candidate farthest from the boundary (a coarse pole of inaccessibility)
 * among turf `pointOnFeature` and a refined grid of interior points, measured in SWEREF 99 TM.
 *
 * Run once: `npx tsx sample/se/derive-anchors.ts [path/to/se-kommuner.geojson]`
 * The output file is committed; the geojson is not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { booleanPointInPolygon, pointOnFeature } from '@turf/turf';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';
import { transformTo } from '../../sources/geo/reproject.js';

type Area = Feature<Polygon | MultiPolygon, { id: string; kom_namn: string }>;

const DEFAULT_INPUT = '/work/shared/data/real/se-kommuner.geojson';
const OUTPUT = fileURLToPath(new URL('../data/se-municipality-anchors.csv', import.meta.url));
const toSweref = transformTo(4326, 3006);

function boundarySegments(area: Area): Float64Array {
  const polygons: Position[][][] = area.geometry.type === 'Polygon' ? [area.geometry.coordinates] : area.geometry.coordinates;
  const out: number[] = [];
  for (const polygon of polygons) for (const ring of polygon) {
    const projected = ring.map(([lon, lat]) => toSweref(lon, lat));
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

interface Candidate { east: number; north: number; clearance: number }

function innermostPoint(area: Area): Candidate {
  const segments = boundarySegments(area);
  const score = (lon: number, lat: number): Candidate | null => {
    if (!booleanPointInPolygon([lon, lat], area)) return null;
    const [east, north] = toSweref(lon, lat);
    return { east, north, clearance: distanceToBoundary(segments, east, north) };
  };
  const [seedLon, seedLat] = pointOnFeature(area).geometry.coordinates;
  let best = { lon: seedLon, lat: seedLat, candidate: score(seedLon, seedLat) ?? { east: 0, north: 0, clearance: 0 } };
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  const polygons = area.geometry.type === 'Polygon' ? [area.geometry.coordinates] : area.geometry.coordinates;
  for (const polygon of polygons) for (const [lon, lat] of polygon[0]) {
    minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
  }
  const steps = 24;
  let stepLon = (maxLon - minLon) / steps, stepLat = (maxLat - minLat) / steps;
  const consider = (lon: number, lat: number) => {
    const candidate = score(lon, lat);
    if (candidate && candidate.clearance > best.candidate.clearance) best = { lon, lat, candidate };
  };
  for (let i = 0; i <= steps; i++) for (let j = 0; j <= steps; j++) consider(minLon + i * stepLon, minLat + j * stepLat);
  for (let round = 0; round < 4; round++) {
    const { lon, lat } = best;
    for (let i = -4; i <= 4; i++) for (let j = -4; j <= 4; j++) consider(lon + (i * stepLon) / 4, lat + (j * stepLat) / 4);
    stepLon /= 4; stepLat /= 4;
  }
  return best.candidate;
}

function main(): void {
  const input = process.argv[2] ?? DEFAULT_INPUT;
  const collection = JSON.parse(readFileSync(input, 'utf8')) as { features: Area[] };
  const areas = [...collection.features].sort((a, b) => a.properties.id.localeCompare(b.properties.id));
  const rows = areas.map((area) => {
    const point = innermostPoint(area);
    // Rounded down to whole metres: the clearance keeps a metre in hand for the rounding.
    return `${area.properties.id},${point.east.toFixed(0)},${point.north.toFixed(0)},${Math.max(0, Math.floor(point.clearance) - 1)}`;
  });
  writeFileSync(OUTPUT, `kommunkod,east,north,clearance\n${rows.join('\n')}\n`);
  console.log(`wrote ${rows.length} anchors to ${OUTPUT}`);
}

main();
