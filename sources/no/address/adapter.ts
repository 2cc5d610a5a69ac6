import type { SourceAdapter } from '../../source-adapter.js';
import { ADDRESS_STAGING_COLUMNS, readAddressCsv } from './parse.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto } from '../../publish/single-table.js';
import { nationalByFileName } from '../../input-scope.js';

const ADDRESS_MERGE: TableMerge = {
  liveTable: 'address',
  keyColumn: 'address_id',
  columns: {
    cadastre_id: 's.cadastre_id',
    municipality_code: 's.municipality_code',
    municipality_name: 's.municipality_name',
    address_type: 's.address_type',
    street_code: 's.street_code',
    street_name: 's.street_name',
    house_number: 's.house_number',
    house_letter: 's.house_letter',
    sub_number: 's.sub_number',
    address_text: 's.address_text',
    postal_code: 's.postal_code',
    postal_place: 's.postal_place',
    geom: 'ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326)',
    source_srid: 's.source_srid',
    source_updated_at: 's.source_updated_at',
  },
};

/** Kartverket Matrikkelen Adresse, the national address register (CSV, zipped or plain). */
export const noAddress: SourceAdapter = {
  id: 'no-address',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Kartverket Matrikkelen Adresse (CSV)',
  docs: 'docs/sources/no-address.md',
  defaultInput:
    'https://nedlasting.geonorge.no/geonorge/Basisdata/MatrikkelenAdresse/CSV/Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip',
  inputFileName: 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip',
  zipEntry: /\.csv$/i,
  stagingColumns: ADDRESS_STAGING_COLUMNS,
  lineRecords: { header: true },
  keyColumns: ['address_id'],
  parse: (input, { fileName }) => readAddressCsv(input, fileName),
  countLive: (client, scope) => countLiveRows(client, 'address', scope),
  publish: publishInto(ADDRESS_MERGE),
};
