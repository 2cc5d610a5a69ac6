import type { Readable } from 'node:stream';
import type { ParsedRecord } from '../../source-adapter.js';
import { GeoPackage, type GeoPackageFeature, type GeoPackageLayer } from '../../formats/geopackage.js';
import { readGeoPackage, rawAttributes, type LayerReading } from '../../formats/geopackage-input.js';
import { InputFormatError } from '../../formats/input-error.js';
import { multiPolygonEwkt } from '../../geo/ewkt.js';
import { planarArea } from '../../geo/planar-area.js';
import { transformTo } from '../../geo/reproject.js';
import { areaValues } from './staging.js';

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

/** The municipality layer and its code and name columns, found by name (the two products differ). */
function municipalityReading(gpkg: GeoPackage, fileName: string): LayerReading {
  const toWgs84 = transformTo(SWEREF99_TM);
  const layer = chooseLayer(gpkg);
  const codeColumn = CODE_COLUMNS.find((c) => layer.columns.includes(c));
  const nameColumn = NAME_COLUMNS.find((c) => layer.columns.includes(c));
  if (!codeColumn || !nameColumn) {
    throw new InputFormatError(`${fileName}: layer "${layer.table}" needs a code column (${CODE_COLUMNS.join(' or ')}) and a name column (${NAME_COLUMNS.join(' or ')}); it has ${layer.columns.join(', ')}`);
  }
  const toRecord = (feature: GeoPackageFeature): ParsedRecord => {
    const reject = (reason: string): ParsedRecord => ({ kind: 'reject', position: feature.position, reason, raw: rawAttributes(feature) });
    const code = String(feature.attributes[codeColumn] ?? '').trim();
    const name = String(feature.attributes[nameColumn] ?? '').trim();
    if (!/^\d{4}$/.test(code)) return reject(`${codeColumn} "${code}" is not a four-digit kommunkod`);
    if (!name) return reject(`${nameColumn} is empty`);
    if (feature.error || !feature.geometry) return reject(feature.error ?? 'no geometry');
    if (feature.geometry.type !== 'Polygon' && feature.geometry.type !== 'MultiPolygon') return reject(`geometry is a ${feature.geometry.type}, not a (multi)polygon`);
    const { polygons } = feature.geometry;
    return {
      kind: 'row',
      position: feature.position,
      values: areaValues('MUNICIPALITY', {
        record_key: code,
        municipality_code: code,
        name,
        geom: multiPolygonEwkt(polygons, toWgs84),
        area_m2: Math.round(planarArea(polygons)),
      }),
    };
  };
  return { layer, columns: [codeColumn, nameColumn], toRecord };
}

export function readMunicipalityBoundaries(stream: Readable, fileName: string, scratchDir?: string): AsyncGenerator<ParsedRecord[]> {
  return readGeoPackage(stream, { fileName, ...(scratchDir ? { scratchDir } : {}) }, (gpkg) => municipalityReading(gpkg, fileName), BATCH);
}
