/** The real public samples the tests read: committed in sample/data, named once in sample/real-samples.ts. */
export {
  REAL_ADDRESS_ZIP,
  REAL_DATA_DIR,
  REAL_NO_MUNICIPALITIES_GEOJSON,
  REAL_SE_BUILDINGS_GEOJSON,
  REAL_SE_MUNICIPALITIES_GEOJSON,
  REAL_SE_MUNICIPALITIES_GPKG,
} from '../../sample/real-samples.js';
