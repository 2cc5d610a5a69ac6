import type { BundleMemberRecords } from '../../source-adapter.js';
import { delimitedField, headerColumn } from '../../formats/delimited-field.js';
import { RegisterValueError } from '../register-value.js';
import { bolagsverketJoinId } from './bolagsverket-record.js';
import { peOrgNr } from './scb-record.js';

/**
 * se-business's records on a night (SourceAdapter.bundleRecords): every line of the three files
 * is a record, grouped by the organisation number Bolagsverket's and SCB's files share
 * (`join_id`), since one company is made of its Bolagsverket entry, its SCB unit and its
 * workplaces. A night parses every record of an organisation that has a new or a removed one.
 */

/** The group of a line: `joinId` of one column, read alone; null where the parser would reject the value. */
function groupByColumn(column: string, delimiter: string, quote: string | undefined, joinId: (text: string) => string): BundleMemberRecords['groupOf'] {
  return (header) => {
    // The column's name and the numbers are ASCII, and in UTF-8 no byte of another character is
    // a delimiter or a quote: Latin-1 reads both files' lines apart alike.
    const index = header ? headerColumn(header.toString('latin1'), column, delimiter, quote) : -1;
    return (line) => {
      const text = index < 0 ? undefined : delimitedField(line.toString('latin1'), index, delimiter, quote);
      if (text === undefined) return null;
      try {
        return joinId(text);
      } catch (error) {
        if (error instanceof RegisterValueError) return null;
        throw error;
      }
    };
  };
}

export const BOLAGSVERKET_RECORDS: BundleMemberRecords = { header: true, quote: '"', groupOf: groupByColumn('organisationsidentitet', ';', '"', bolagsverketJoinId) };
export const SCB_RECORDS: BundleMemberRecords = { header: true, groupOf: groupByColumn('peorgnr', '\t', undefined, peOrgNr) };
