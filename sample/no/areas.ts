/**
 * Sample area registers: municipality boundaries (the real 2024 file, copied to sample/data),
 * grunnkretser and postal code areas (GeoJSON in EPSG:25833, as the Geonorge downloads are).
 *
 * Grunnkretser and postal areas are the zones of the parcel grid that the address sample
 * already assigns (`districtsFor`: 6 x 6 cells per grunnkrets; `postnummer`: 6 rows x 24 columns
 * per postal zone), drawn on the undisturbed grid lines. Every address point lies at least
 * 0.15 of a cell inside its cell's grid lines (parcel-grid.ts), so it falls in the polygon of the
 * very codes its CSV row carries. Where a large municipality wraps its zone numbering (990
 * grunnkretser, its block of postal codes), one code covers several rectangles: a MultiPolygon.
 */
import { copyFile } from 'node:fs/promises';
import { noArea } from '../../sources/no/area/adapter.js';
import { noGrunnkrets } from '../../sources/no/grunnkrets/adapter.js';
import { noPostalCode } from '../../sources/no/postal-code/adapter.js';
import { districtsFor } from '../districts.js';
import { round2 } from '../parcel-grid.js';
import { STREET_COLS, STREET_ROWS, type MunicipalityBlock, type SamplePlan } from '../plan.js';
import { postnummer, poststed } from '../postal.js';
import type { SampleRegisterFile } from '../register-files.js';
import type { Point } from '../types.js';
import { writePieces } from './sample-text.js';
import { sampleDataFile } from '../data-files.js';

// Looked up when the file is written, not on import: the worker imports this module too,
// from a build (the benchmark's snapshot) that has no sample data beside it.
const KOMMUNER_FILE = 'no-kommuner-2024-S.geojson';
const KOMMUNER_COUNT = 357;

/** Grid cells per grunnkrets side (as in districts.ts) and per postal zone (3 street bands by 2 street segments, as in parcels.ts). */
export const GRUNNKRETS_CELLS = 6;
export const POSTAL_ZONE_ROWS = 3 * STREET_ROWS;
export const POSTAL_ZONE_COLS = 2 * STREET_COLS;

/** The closed, counter-clockwise ring around grid rows [r0, r1) and columns [c0, c1) of a block, EPSG:25833. */
export function gridRectangle(block: MunicipalityBlock, r0: number, r1: number, c0: number, c1: number): Point[] {
  const west = round2(block.originEast + block.colOffsets[c0]);
  const east = round2(block.originEast + block.colOffsets[Math.min(c1, block.cols)]);
  const south = round2(block.originNorth + block.rowOffsets[r0]);
  const north = round2(block.originNorth + block.rowOffsets[Math.min(r1, block.rows)]);
  return [[west, south], [east, south], [east, north], [west, north], [west, south]];
}

interface ZoneArea {
  properties: Record<string, string>;
  rings: Point[][];
}

/** The zones of a block, `size` rows by `cols` columns of cells, grouped by the code `identify` gives them. */
function blockZones(block: MunicipalityBlock, rowsPerZone: number, colsPerZone: number, identify: (row: number, col: number) => Record<string, string> & { code: string }): ZoneArea[] {
  const zones = new Map<string, ZoneArea>();
  for (let r0 = 0; r0 < block.rows; r0 += rowsPerZone) {
    for (let c0 = 0; c0 < block.cols; c0 += colsPerZone) {
      const { code, ...properties } = identify(r0, c0);
      let zone = zones.get(code);
      if (!zone) zones.set(code, (zone = { properties, rings: [] }));
      zone.rings.push(gridRectangle(block, r0, r0 + rowsPerZone, c0, c0 + colsPerZone));
    }
  }
  return [...zones.values()];
}

const CRS_25833 = '"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::25833"}}';

function* featureCollection(name: string, features: Iterable<ZoneArea>, counter: { rows: number }): Generator<string> {
  yield `{"type":"FeatureCollection","name":"${name}",${CRS_25833},"features":[\n`;
  for (const zone of features) {
    const geometry = zone.rings.length === 1
      ? { type: 'Polygon', coordinates: [zone.rings[0]] }
      : { type: 'MultiPolygon', coordinates: zone.rings.map((ring) => [ring]) };
    yield `${counter.rows ? ',\n' : ''}${JSON.stringify({ type: 'Feature', properties: zone.properties, geometry })}`;
    counter.rows += 1;
  }
  yield '\n]}\n';
}

export function* sampleGrunnkretser(plan: SamplePlan): Generator<ZoneArea> {
  for (const block of plan.blocks) {
    yield* blockZones(block, GRUNNKRETS_CELLS, GRUNNKRETS_CELLS, (row, col) => {
      const { grunnkrets } = districtsFor(plan.seedHash, block.municipality, block.cols, row, col);
      return { code: grunnkrets.nummer, grunnkretsnummer: grunnkrets.nummer, grunnkretsnavn: grunnkrets.navn, kommunenummer: block.municipality.kommunenummer };
    });
  }
}

/** The postal code parcels.ts gives an address in grid cell (row, col). */
export function postalCodeAt(block: MunicipalityBlock, row: number, col: number): string {
  const band = Math.floor(row / STREET_ROWS);
  const segment = Math.floor(col / STREET_COLS);
  const segmentsPerBand = Math.ceil(block.cols / STREET_COLS);
  return postnummer(block.municipality.kommunenummer, Math.floor(band / 3) * Math.ceil(segmentsPerBand / 2) + Math.floor(segment / 2));
}

export function* samplePostalAreas(plan: SamplePlan): Generator<ZoneArea> {
  for (const block of plan.blocks) {
    const k = block.municipality.kommunenummer;
    yield* blockZones(block, POSTAL_ZONE_ROWS, POSTAL_ZONE_COLS, (row, col) => {
      const code = postalCodeAt(block, row, col);
      return { code, postnummer: code, poststed: poststed(block.municipality, code), kommunenummer: k };
    });
  }
}

export const MUNICIPALITY_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: noArea.id,
  country: 'NO',
  fileName: noArea.inputFileName,
  // Every municipality, not only the sample's: the file replaces the whole country's boundaries.
  async write({ path }) {
    await copyFile(sampleDataFile(KOMMUNER_FILE), path);
    return { rows: KOMMUNER_COUNT };
  },
};

export const GRUNNKRETS_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: noGrunnkrets.id,
  country: 'NO',
  fileName: noGrunnkrets.inputFileName,
  async write({ path, plan }) {
    const counter = { rows: 0 };
    await writePieces(path, featureCollection('grunnkretser', sampleGrunnkretser(plan), counter));
    return counter;
  },
};

export const POSTAL_CODE_SAMPLE_FILE: SampleRegisterFile = {
  sourceId: noPostalCode.id,
  country: 'NO',
  fileName: noPostalCode.inputFileName,
  async write({ path, plan }) {
    const counter = { rows: 0 };
    await writePieces(path, featureCollection('postnummeromrader', samplePostalAreas(plan), counter));
    return counter;
  },
};
