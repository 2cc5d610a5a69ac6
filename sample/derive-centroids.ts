/**
 * One-off: derives `sample/data/no-municipality-centroids.csv` (kommunenummer,lon,lat) from the
 * 2024 municipality boundaries (robhop/fylker-og-kommuner `Kommuner-S.geojson`, CC BY 4.0
 * Kartverket). The generator centres each municipality's block of sample parcels on this point.
 *
 * The point is guaranteed to lie inside the municipality: it is the point farthest from the
 * boundary (sample/innermost-point.ts, measured in UTM33), so a block of parcels around it stays
 * inside as far as possible.
 *
 * Run once: `npx tsx sample/derive-centroids.ts [path/to/boundaries.geojson]` (default: the committed
 * `sample/data/no-kommuner-2024-S.geojson`). The output file is committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import type { Feature, MultiPolygon, Polygon } from 'geojson';
import { transformTo } from '../sources/geo/reproject.js';
import { innermostPoint } from './innermost-point.js';
import { REAL_NO_MUNICIPALITIES_GEOJSON } from './real-samples.js';

type Area = Feature<Polygon | MultiPolygon, { kommunenummer: string; kommunenavn: string }>;

const OUTPUT = fileURLToPath(new URL('./data/no-municipality-centroids.csv', import.meta.url));
const toUtm = transformTo(4326, 25833);

function main(): void {
  const input = process.argv[2] ?? REAL_NO_MUNICIPALITIES_GEOJSON;
  const collection = JSON.parse(readFileSync(input, 'utf8')) as { features: Area[] };
  const rows: string[] = [];
  const clearances: number[] = [];
  const areas = [...collection.features].sort((a, b) => a.properties.kommunenummer.localeCompare(b.properties.kommunenummer));
  for (const area of areas) {
    const point = innermostPoint(area, toUtm);
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
