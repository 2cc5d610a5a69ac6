import type { SourceAdapter } from '../../source-adapter.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { countKeyed } from '../../publish/merge-keyed.js';
import { AREA_STAGING_COLUMNS, AreaPropertyError, areaMerge, publishAreas, nameProperty, readAreaFeatures, registerNumber } from '../area-features.js';
import { nationalByFileName } from '../../input-scope.js';

/**
 * Grunnkretser, SSB's basic statistical units, from a GeoJSON FeatureCollection with the
 * properties `grunnkretsnummer` (eight digits: kommunenummer, delområde, krets) and
 * `grunnkretsnavn`, as the Geonorge "Statistiske enheter grunnkretser" download has them.
 * The municipality is the number's first four digits; a `kommunenummer` that disagrees is refused.
 */
export const noGrunnkrets: SourceAdapter = {
  id: 'no-grunnkrets',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'SSB/Kartverket grunnkretser (GeoJSON)',
  docs: 'docs/sources/no-area.md',
  defaultInput: 'https://nedlasting.geonorge.no/geonorge/Befolkning/Grunnkretser/GeoJSON/Befolkning_0000_Norge_25833_Grunnkretser_GeoJSON.zip',
  inputFileName: 'Befolkning_0000_Norge_25833_Grunnkretser_GeoJSON.geojson',
  zipEntry: /\.(geo)?json$/i,
  stagingColumns: AREA_STAGING_COLUMNS,
  keyColumns: ['area_code'],
  parse: (input, { fileName }) =>
    readAreaFeatures(input, fileName, (properties) => {
      const code = registerNumber(properties.grunnkretsnummer, 8, 'grunnkretsnummer');
      const municipalityCode = code.slice(0, 4);
      if (properties.kommunenummer !== undefined && registerNumber(properties.kommunenummer, 4, 'kommunenummer') !== municipalityCode) {
        throw new AreaPropertyError(`grunnkretsnummer ${code} does not lie in kommunenummer ${String(properties.kommunenummer)}`);
      }
      return { code, name: nameProperty(properties.grunnkretsnavn, 'grunnkretsnavn', false), municipalityCode };
    }),
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: (client, scope) => countKeyed(client, areaMerge('GRUNNKRETS'), scope),
  publish: (context, scope) => publishAreas(context, 'GRUNNKRETS', scope),
};
