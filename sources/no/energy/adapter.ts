import type { SourceAdapter } from '../../source-adapter.js';
import { ENERGY_STAGING_COLUMNS, readEnergyCsv } from './parse.js';
import { inboxPath } from '../../inbox.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto, columnsAsStaged } from '../../publish/single-table.js';
import { nationalByFileName } from '../../input-scope.js';

export const ENERGY_FILE_NAME = 'Enova_0000_Norge_Energiattester.csv';

const ENERGY_MERGE: TableMerge = {
  liveTable: 'energy_certificate',
  keyColumn: 'certificate_id',
  columns: {
    ...columnsAsStaged(ENERGY_STAGING_COLUMNS),
    // An energy certificate is valid for ten years from issue (energimerkeforskriften).
    valid_to_date: `(s.issued_date + interval '10 years')::date`,
    source: `'ENERGY_AGENCY'`,
  },
};

/**
 * Enova's energy certificates (energiattester), the national register of building energy labels.
 * Enova's bulk file sits behind an API key (GET …/ems/offentlige-data/v1/Fil/{year} answers a
 * `bankFileUrl`, one file per year), so the operator fetches the yearly files and concatenates
 * them into one national CSV in the inbox; see docs/sources/no-energy.md.
 */
export const noEnergy: SourceAdapter = {
  id: 'no-energy',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Enova energiattester (CSV)',
  docs: 'docs/sources/no-energy.md',
  get defaultInput() {
    return inboxPath(ENERGY_FILE_NAME);
  },
  inputFileName: ENERGY_FILE_NAME,
  zipEntry: /\.csv$/i,
  stagingColumns: ENERGY_STAGING_COLUMNS,
  // Each certificate is one line (a file whose quoted field holds a line break is staged whole).
  lineRecords: { header: true, quote: '"' },
  keyColumns: ['certificate_id'],
  parse: (input, { fileName }) => readEnergyCsv(input, fileName),
  countLive: (client, scope) => countLiveRows(client, 'energy_certificate', scope),
  publish: publishInto(ENERGY_MERGE),
};
