import type { Readable } from 'node:stream';
import { inboxPath } from '../../inbox.js';
import type { ParsedRecord, SourceAdapter } from '../../source-adapter.js';
import { isTarName, readBundleRecords } from '../../formats/bundle.js';
import { readHeaderedRecords } from '../../formats/delimited.js';
import { InputFormatError } from '../../formats/input-error.js';
import { readJsonLines, RecordError } from '../../formats/json-lines.js';
import { utf8Text } from '../../formats/text-encoding.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto } from '../../publish/single-table.js';
import {
  apiDeclarationValues, ENERGY_STAGING_COLUMNS, EXTRACT_OPTIONAL, EXTRACT_REQUIRED, extractDeclarationValues, isDeclarationProblem,
  type ApiDeclarationLine,
} from './parse.js';
import { nationalByFileName } from '../../input-scope.js';

const ENERGY_MERGE: TableMerge = {
  liveTable: 'energy_certificate',
  keyColumn: 'certificate_id',
  columns: {
    cadastre_id: 's.cadastre_id',
    cadastre_ids: 's.cadastre_ids',
    building_number: 'NULL',
    municipality_code: 's.municipality_code',
    label: 's.label',
    heating_grade: 'NULL',
    issued_date: 's.issued_date',
    valid_to_date: 's.valid_to_date',
    source: "'ENERGY_AGENCY'",
    address_text: 's.address_text',
    postal_code: 's.postal_code',
    postal_place: 's.postal_place',
    house_number: 's.house_number',
    energy_performance_kwh_m2: 's.energy_performance_kwh_m2',
    primary_energy_kwh_m2: 's.primary_energy_kwh_m2',
    specific_energy_use_kwh_m2: 's.specific_energy_use_kwh_m2',
    heated_area_m2: 's.heated_area_m2',
    construction_year: 's.built_year',
    building_type: 's.building_type',
    building_category: 's.building_category',
    floor_count: 's.floor_count',
    radon_measurement: 's.radon_measurement',
    ventilation_check: 's.ventilation_check',
  },
};

/** The API answers as JSON Lines (`.jsonl`/`.ndjson`), the register extract as `;`-separated UTF-8 (`.csv`/`.txt`). */
function readMember(name: string, stream: Readable): AsyncIterable<ParsedRecord[]> {
  if (/\.(jsonl|ndjson)$/i.test(name)) {
    return readJsonLines<ApiDeclarationLine>(stream, {
      feed: 'se-energy-api',
      label: name,
      toRow: (line) => {
        try {
          return apiDeclarationValues(line);
        } catch (error) {
          if (isDeclarationProblem(error)) throw new RecordError(error.message);
          throw error;
        }
      },
    });
  }
  if (/\.(csv|txt)$/i.test(name)) {
    return readHeaderedRecords(utf8Text(stream, name), {
      delimiter: ';',
      quote: '"',
      label: name,
      expected: "Boverket's register extract (';'-separated, UTF-8, FormularId;IdFastBet;IdKommun;EgiEnergiklass;…)",
      required: EXTRACT_REQUIRED,
      optional: EXTRACT_OPTIONAL,
      toRow: (field) => extractDeclarationValues(field),
      isRowProblem: isDeclarationProblem,
    });
  }
  throw new InputFormatError(`${name}: not an energy declaration file (expected API answers as .jsonl or the register extract as .csv)`);
}

const ENERGY_FILE_NAME = 'boverket_energideklarationer_0000_sverige.jsonl';

/**
 * Boverket energideklarationer: the public API's answers per municipality and/or the register
 * extract, in one file or a tar of both (docs/sources/se-energy.md). A snapshot replaces the
 * declarations of the municipalities it covers.
 */
export const seEnergy: SourceAdapter = {
  id: 'se-energy',
  country: 'SE',
  scopeOf: nationalByFileName,
  title: 'Boverket energideklarationer (API answers as JSON Lines, register extract CSV)',
  docs: 'docs/sources/se-energy.md',
  // The API needs a subscription key and one call per municipality: the operator's fetcher
  // (docs/sources/se-energy.md) leaves its answers in the inbox.
  get defaultInput() {
    return inboxPath(ENERGY_FILE_NAME);
  },
  inputFileName: ENERGY_FILE_NAME,
  zipEntry: /\.(tar|jsonl|ndjson|csv|txt)$/i,
  stagingColumns: ENERGY_STAGING_COLUMNS,
  keyColumns: ['certificate_id'],
  // One declaration per line: the API's answers as JSON Lines, the extract as a quoted CSV. A
  // tar of several files is staged whole (its lines are not the bundle's records).
  lineRecords: (fileName) => (isTarName(fileName) ? undefined : /\.(jsonl|ndjson)$/i.test(fileName) ? { header: false } : { header: true, quote: '"' }),
  parse: (input, { fileName, scratchDir }) => readBundleRecords(input, fileName, { dataFile: /\.(jsonl|ndjson|csv|txt)$/i, scratchDir }, readMember),
  countLive: (client, scope) => countLiveRows(client, 'energy_certificate', scope),
  publish: publishInto(ENERGY_MERGE),
};
