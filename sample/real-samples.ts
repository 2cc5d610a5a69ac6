/**
 * The real public register samples committed in sample/data (origin, licence and sha256 of each in
 * sample/data/README.md). Tests parse them and the one-off derive tools read them, so every
 * reader names them here and a clone needs nothing outside the repository.
 */
import path from 'node:path';
import { sampleDataFile } from './data-files.js';

/** Kartverket Matrikkelen Adresse: a Geonorge national zip, 46-column CSV, 47 addresses in 4204 Kristiansand. */
export const REAL_ADDRESS_ZIP = sampleDataFile('no-matrikkelen-adresse-46col-sample.zip');
/** Norway's 357 municipalities of 2024, simplified boundaries, WGS84 GeoJSON. */
export const REAL_NO_MUNICIPALITIES_GEOJSON = sampleDataFile('no-kommuner-2024-S.geojson');
/** Sweden's 290 municipalities, simplified SCB boundaries, a GeoPackage in EPSG:3006. */
export const REAL_SE_MUNICIPALITIES_GPKG = sampleDataFile('se-kommuner-3006.gpkg');
/** Sweden's 290 municipalities, Valmyndigheten boundaries simplified, WGS84 GeoJSON. */
export const REAL_SE_MUNICIPALITIES_GEOJSON = sampleDataFile('se-kommuner.geojson');
/** Lantmäteriet byggnad: 14 real building footprints, GeoJSON in EPSG:3006. */
export const REAL_SE_BUILDINGS_GEOJSON = sampleDataFile('se-byggnad-sample-3006.geojson');

/** The folder that holds them all. */
export const REAL_DATA_DIR = path.dirname(REAL_ADDRESS_ZIP);
