import type { Readable } from 'node:stream';
import { inboxPath } from '../../inbox.js';
import type { ParsedRecord, SourceAdapter } from '../../source-adapter.js';
import { readBundleRecords } from '../../formats/bundle.js';
import { readHeaderedRecords } from '../../formats/delimited.js';
import { InputFormatError } from '../../formats/input-error.js';
import { readJsonLines } from '../../formats/json-lines.js';
import { utf8Text } from '../../formats/text-encoding.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { AREA_STAGING_COLUMNS } from './staging.js';
import { countLiveAreas, publishAreas } from './publish.js';
import { landAllocationValues, POSTAL_REQUIRED, postalCodeValues, type LandAllocationRecord } from './parse.js';
import { readMunicipalityBoundaries } from './municipality-boundaries.js';
import { RegisterValueError } from '../register-value.js';
import { nationalByFileName } from '../../input-scope.js';

function readMember(name: string, stream: Readable, scratchDir: string | undefined): AsyncIterable<ParsedRecord[]> {
  if (/\.gpkg$/i.test(name)) return readMunicipalityBoundaries(stream, name, scratchDir);
  if (/\.(csv|txt)$/i.test(name)) {
    return readHeaderedRecords(utf8Text(stream, name), {
      delimiter: ';', quote: '"', label: name,
      expected: 'postal codes (UTF-8, \';\'-separated: postnummer;postort;kommunkod)',
      required: POSTAL_REQUIRED, optional: [], toRow: postalCodeValues,
      isRowProblem: (error): error is Error => error instanceof RegisterValueError,
    });
  }
  if (/\.(jsonl|ndjson)$/i.test(name)) {
    return readJsonLines<LandAllocationRecord>(stream, { feed: 'se-land-allocation', label: name, toRow: landAllocationValues });
  }
  throw new InputFormatError(`${name}: not an area file (expected municipality boundaries .gpkg, postal codes .csv, land allocations .jsonl)`);
}

const AREA_FILE_NAME = 'se_omraden_0000_sverige.tar';

/**
 * Swedish areas: the 290 municipalities with their boundaries (GeoPackage, EPSG:3006), postal
 * codes with their municipality, and municipal land allocations (JSON Lines exchange format),
 * in one tar or each file alone (docs/sources/se-area.md).
 */
export const seArea: SourceAdapter = {
  id: 'se-area',
  country: 'SE',
  scopeOf: nationalByFileName,
  title: 'Swedish municipalities, postal codes and land allocations',
  docs: 'docs/sources/se-area.md',
  // Boundaries, postal codes and allocations come from three places; the operator bundles them
  // into the inbox (docs/sources/se-area.md).
  get defaultInput() {
    return inboxPath(AREA_FILE_NAME);
  },
  inputFileName: AREA_FILE_NAME,
  zipEntry: /\.(tar|gpkg|csv|jsonl)$/i,
  stagingColumns: [...AREA_STAGING_COLUMNS],
  keyColumns: ['record_kind', 'record_key'],
  parse: (input, { fileName, scratchDir }) =>
    readBundleRecords(input, fileName, { dataFile: /\.(gpkg|csv|txt|jsonl|ndjson)$/i, scratchDir }, (name, stream) => readMember(name, stream, scratchDir)),
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: countLiveAreas,
  publish: publishAreas,
};
