import type { Readable } from 'node:stream';
import type { ParsedRecord } from '../source-adapter.js';
import { GeoPackage, type GeoPackageLayer } from '../formats/geopackage.js';
import { geoPackageFile, rawAttributes } from '../formats/geopackage-input.js';
import { InputFormatError } from '../formats/input-error.js';
import { multiPolygonEwkt } from '../geo/ewkt.js';
import { planarArea } from '../geo/planar-area.js';
import { transformTo } from '../geo/reproject.js';
import { areaValues } from './area-staging.js';

/**
 * Swedish municipality boundaries from a GeoPackage in SWEREF 99 TM (EPSG:3006): Lantmäteriet's
 * `kommun-lan-rike` (layer `kommun`: kommunkod, namnkortform/kommunnamn) or SCB's simplified
 * boundaries as in `se-kommuner-3006.gpkg` (one layer: municipality_code, municipality_name).
 * The columns are found by name; the area is measured in SWEREF 99 TM.
 */

const SWEREF99_TM = 3006;
const CODE_COLUMNS = ['kommunkod', 'municipality_code'];
const NAME_COLUMNS = ['namnkortform', 'municipality_name', 'kommunnamn'];
const BATCH = 100;

function chooseLayer(gpkg: GeoPackage): GeoPackageLayer {
  const layers = gpkg.featureLayers();
  const name = layers.find((l) => l.toLowerCase() === 'kommun') ?? (layers.length === 1 ? layers[0] : undefined);
  if (!name) throw new InputFormatError(`${gpkg.label} has no layer "kommun" and more than one feature layer (${layers.join(', ') || 'none'}); which holds the municipalities?`);
  return gpkg.layer(name, SWEREF99_TM);
}

export async function* readMunicipalityBoundaries(stream: Readable, fileName: string): AsyncGenerator<ParsedRecord[]> {
  const file = await geoPackageFile(stream, { fileName });
  const toWgs84 = transformTo(SWEREF99_TM);
  try {
    const gpkg = GeoPackage.open(file.path, fileName);
    try {
      const layer = chooseLayer(gpkg);
      const codeColumn = CODE_COLUMNS.find((c) => layer.columns.includes(c));
      const nameColumn = NAME_COLUMNS.find((c) => layer.columns.includes(c));
      if (!codeColumn || !nameColumn) {
        throw new InputFormatError(`${fileName}: layer "${layer.table}" needs a code column (${CODE_COLUMNS.join(' or ')}) and a name column (${NAME_COLUMNS.join(' or ')}); it has ${layer.columns.join(', ')}`);
      }
      let batch: ParsedRecord[] = [];
      for (const feature of gpkg.features(layer, [codeColumn, nameColumn])) {
        const reject = (reason: string) => batch.push({ kind: 'reject', position: feature.position, reason, raw: rawAttributes(feature) });
        const code = String(feature.attributes[codeColumn] ?? '').trim();
        const name = String(feature.attributes[nameColumn] ?? '').trim();
        if (!/^\d{4}$/.test(code)) reject(`${codeColumn} "${code}" is not a four-digit kommunkod`);
        else if (!name) reject(`${nameColumn} is empty`);
        else if (feature.error || !feature.geometry) reject(feature.error ?? 'no geometry');
        else if (feature.geometry.type !== 'Polygon' && feature.geometry.type !== 'MultiPolygon') reject(`geometry is a ${feature.geometry.type}, not a (multi)polygon`);
        else {
          const { polygons } = feature.geometry;
          batch.push({
            kind: 'row',
            position: feature.position,
            values: areaValues('MUNICIPALITY', {
              record_key: code,
              municipality_code: code,
              name,
              geom: multiPolygonEwkt(polygons, toWgs84),
              area_m2: Math.round(planarArea(polygons)),
            }),
          });
        }
        if (batch.length >= BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    } finally {
      gpkg.close();
    }
  } finally {
    await file.cleanup();
  }
}
