/**
 * One-off: derives `sample/data/se-municipality-anchors.csv` (kommunkod, easting, northing,
 * clearance in EPSG:3006 metres) from the real municipality boundaries
 * (`sample/data/se-kommuner.geojson`, okfse/sweden-geojson, WGS84). The Swedish
 * sample centres each municipality's grid of properties on its anchor and keeps the whole grid
 * within `clearance` of it, so every sample property lies inside its real municipality.
 *
 * The anchor is the point farthest from the boundary (sample/innermost-point.ts), measured in
 * SWEREF 99 TM.
 *
 * Run once: `npx tsx sample/se/derive-anchors.ts [path/to/boundaries.geojson]` (default: the
 * committed `sample/data/se-kommuner.geojson`). The output file is committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Feature, MultiPolygon, Polygon } from 'geojson';
import { transformTo } from '../../sources/geo/reproject.js';
import { innermostPoint } from '../innermost-point.js';
import { REAL_SE_MUNICIPALITIES_GEOJSON } from '../real-samples.js';

type Area = Feature<Polygon | MultiPolygon, { id: string; kom_namn: string }>;

const OUTPUT = fileURLToPath(new URL('../data/se-municipality-anchors.csv', import.meta.url));
const toSweref = transformTo(4326, 3006);

function main(): void {
  const input = process.argv[2] ?? REAL_SE_MUNICIPALITIES_GEOJSON;
  const collection = JSON.parse(readFileSync(input, 'utf8')) as { features: Area[] };
  const areas = [...collection.features].sort((a, b) => a.properties.id.localeCompare(b.properties.id));
  const rows = areas.map((area) => {
    const point = innermostPoint(area, toSweref);
    // Rounded down to whole metres: the clearance keeps a metre in hand for the rounding.
    return `${area.properties.id},${point.x.toFixed(0)},${point.y.toFixed(0)},${Math.max(0, Math.floor(point.clearance) - 1)}`;
  });
  writeFileSync(OUTPUT, `kommunkod,east,north,clearance\n${rows.join('\n')}\n`);
  console.log(`wrote ${rows.length} anchors to ${OUTPUT}`);
}

main();
