import type { SourceAdapter } from '../../source-adapter.js';
import { countKeyed, mergeKeyed, type KeyedMerge } from '../../publish/merge-keyed.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { AREA_M2_SQL, AREA_STAGING_COLUMNS, nameProperty, readAreaFeatures, registerNumber } from '../area-features.js';
import { nationalByFileName } from '../../input-scope.js';

/**
 * Municipalities (kommuner) with their 2024 boundaries, from a GeoJSON FeatureCollection whose
 * features carry `kommunenummer` and `kommunenavn` (or `navn`), as Kartverket's boundaries
 * (and the robhop/fylker-og-kommuner export of them) do. This source owns the `municipality`
 * table: names seeded by the foundation's migration are overwritten by the register's, and a
 * national file removes municipalities that no longer exist (after a reform).
 */

/** This source owns `municipality` (key `code`); rows the foundation seeded have no hash yet, so the first load updates them. */
const MUNICIPALITY_MERGE: KeyedMerge = {
  liveTable: 'municipality',
  keys: { code: 's.area_code' },
  columns: { name: 's.name', geom: 's.geom', area_m2: AREA_M2_SQL },
  scopeColumn: 'code',
};

export const noArea: SourceAdapter = {
  id: 'no-area',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Kartverket municipality boundaries (kommuner, GeoJSON)',
  docs: 'docs/sources/no-area.md',
  defaultInput: 'https://nedlasting.geonorge.no/geonorge/Basisdata/Kommuner/GeoJSON/Basisdata_0000_Norge_4258_Kommuner_GeoJSON.zip',
  inputFileName: 'Basisdata_0000_Norge_4258_Kommuner_GeoJSON.geojson',
  zipEntry: /\.(geo)?json$/i,
  stagingColumns: AREA_STAGING_COLUMNS,
  keyColumns: ['area_code'],
  parse: (input, { fileName }) =>
    readAreaFeatures(input, fileName, (properties) => {
      const code = registerNumber(properties.kommunenummer, 4, 'kommunenummer');
      return { code, name: nameProperty(properties.kommunenavn ?? properties.navn, 'kommunenavn', true), municipalityCode: code };
    }),
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: (client, scope) => countKeyed(client, MUNICIPALITY_MERGE, scope),
  async publish({ client, stagingTable, runId }, scope) {
    const counts = await mergeKeyed(client, stagingTable, MUNICIPALITY_MERGE, scope, runId);
    return { ...counts, tables: { municipality: counts } };
  },
};
