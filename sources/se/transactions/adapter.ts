import type { Readable } from 'node:stream';
import { inboxPath } from '../../inbox.js';
import type { ParseContext, ParsedRecord, SourceAdapter } from '../../source-adapter.js';
import { inMember, keptLinesOf, readBundle } from '../../formats/bundle.js';
import { InputFormatError } from '../../formats/input-error.js';
import { readJsonLines } from '../../formats/json-lines.js';
import { countLiveRows } from '../../publish/merge-table.js';
import { CODE_TABLES, codeTableOf, readCodeTable, type CodeTableName } from './price-code-tables.js';
import { priceRecordValues, TRANSACTION_STAGING_COLUMNS, type PriceRecord } from './parse.js';
import { publishTransactions } from './publish.js';
import { nationalByFileName } from '../../input-scope.js';

const DATA_FILE = /\.(txt|jsonl|ndjson)$/i;
const SALES_FILE = /\.(jsonl|ndjson)$/i;

/**
 * Code tables first (they are small), then the sales, each checked against them. On a night
 * (`keepPosition`), only the changed sales are parsed; the code tables always are.
 */
async function* readPriceExtract(input: Readable, { fileName, keepPosition, scratchDir }: ParseContext): AsyncGenerator<ParsedRecord[]> {
  const codes = new Map<CodeTableName, Map<string, string>>();
  let records = 0;
  for await (const member of readBundle(input, fileName, { dataFile: DATA_FILE, scratchDir })) {
    const table = codeTableOf(member.name);
    if (table) {
      if (records) throw new InputFormatError(`${fileName}: code table ${member.name} comes after the sales; the code tables must precede them in the bundle`);
      codes.set(table, await readCodeTable(member.stream, member.name));
      continue;
    }
    if (!SALES_FILE.test(member.name)) {
      throw new InputFormatError(`${member.name}: not part of a property-price extract (expected K_LANKOD, K_KOMKOD, K_FANGESKOD, K_OTYP code tables and the sales as .jsonl)`);
    }
    const missing = CODE_TABLES.filter((name) => !codes.has(name));
    if (missing.length) throw new InputFormatError(`${fileName}: code table(s) ${missing.join(', ')} missing before ${member.name}; a sale cannot be checked without them`);
    records++;
    yield* inMember(member, readJsonLines<PriceRecord>(keptLinesOf(member, { header: false, keepPosition }), { feed: 'se-transactions', label: member.name, toRow: (record) => priceRecordValues(record, codes) }));
  }
  if (!records) throw new InputFormatError(`${fileName} holds no sales (.jsonl)`);
}

const TRANSACTIONS_FILE_NAME = 'fastighetspriser_0000_sverige.tar';

/**
 * Lantmäteriet's property-price register (Fastighetsprisuttag) in nordprop's exchange format:
 * a tar of the code tables and the sales as JSON Lines (docs/exchange/se-transactions.md).
 * A snapshot replaces the transactions and title holders of the municipalities it covers; a
 * night parses only the sales whose line changed (bundleRecords) and publishes them
 * (publish.ts).
 */
export const seTransactions: SourceAdapter = {
  id: 'se-transactions',
  country: 'SE',
  scopeOf: nationalByFileName,
  title: 'Lantmäteriet fastighetsprisregistret (exchange format: code tables + JSON Lines)',
  docs: 'docs/sources/se-transactions.md',
  // No open feed exists: the extract is ordered from Lantmäteriet and converted (see the docs).
  get defaultInput() {
    return inboxPath(TRANSACTIONS_FILE_NAME);
  },
  inputFileName: TRANSACTIONS_FILE_NAME,
  zipEntry: /\.(tar|jsonl)$/i,
  stagingColumns: TRANSACTION_STAGING_COLUMNS,
  keyColumns: ['transaction_id'],
  parse: readPriceExtract,
  // A sale is one line; the code tables before it name its codes, so a changed table reads as every sale changed.
  bundleRecords: {
    dataFile: DATA_FILE,
    member: (name) => (SALES_FILE.test(name) ? { header: false } : undefined),
    context: (name) => codeTableOf(name) !== null,
  },
  countLive: (client, scope) => countLiveRows(client, 'property_transaction', scope),
  publish: publishTransactions,
};
