import type { SourceAdapter } from '../../source-adapter.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { countKeyed } from '../../publish/merge-keyed.js';
import { AREA_STAGING_COLUMNS, areaMerge, publishAreas, nameProperty, readAreaFeatures, registerNumber } from '../area-features.js';
import { nationalByFileName } from '../../input-scope.js';

/**
 * Postal code areas (postnummerområder), from a GeoJSON FeatureCollection with the properties
 * `postnummer`, `poststed` and `kommunenummer` (the municipality Bring's postal register assigns
 * each code to), as the Geonorge "Postnummerområder" download has them.
 */
export const noPostalCode: SourceAdapter = {
  id: 'no-postal-code',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Kartverket postal code areas (postnummerområder, GeoJSON)',
  docs: 'docs/sources/no-area.md',
  defaultInput: 'https://nedlasting.geonorge.no/geonorge/Basisdata/Postnummeromrader/GeoJSON/Basisdata_0000_Norge_25833_Postnummeromrader_GeoJSON.zip',
  inputFileName: 'Basisdata_0000_Norge_25833_Postnummeromrader_GeoJSON.geojson',
  zipEntry: /\.(geo)?json$/i,
  stagingColumns: AREA_STAGING_COLUMNS,
  keyColumns: ['area_code'],
  parse: (input, { fileName }) =>
    readAreaFeatures(input, fileName, (properties) => ({
      code: registerNumber(properties.postnummer, 4, 'postnummer'),
      name: nameProperty(properties.poststed, 'poststed', false),
      municipalityCode: registerNumber(properties.kommunenummer, 4, 'kommunenummer'),
    })),
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: (client, scope) => countKeyed(client, areaMerge('POSTAL_CODE'), scope),
  publish: (context, scope) => publishAreas(context, 'POSTAL_CODE', scope),
};
