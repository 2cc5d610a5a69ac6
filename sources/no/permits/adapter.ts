import type { SourceAdapter, StagingColumn } from '../../source-adapter.js';
import { readJsonLines, RecordError } from '../../formats/json-lines.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto, columnsAsStaged } from '../../publish/single-table.js';
import { cadastreOf, type ExchangeMatrikkel } from '../exchange-matrikkel.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

/**
 * Building permit cases (byggesaker) per property. Municipalities keep them in their own case
 * systems and publish no national bulk file, so nordprop defines a JSON Lines exchange file:
 * `schema/exchange/no-permits.schema.json`, documented in docs/exchange/no-permits.md.
 * A case is identified by its municipality and Noark case number: `0301-2023/1234`.
 */

export const PERMITS_FILE_NAME = 'Byggesak_0000_Norge.jsonl';

type CaseStatus = 'Mottatt' | 'Under behandling' | 'Innvilget' | 'Delvis innvilget' | 'Avslått' | 'Trukket' | 'Avsluttet' | 'Ferdigattest';

interface PermitRecord {
  saksnummer: { saksaar: number; sakssekvensnummer: number };
  eiendomByggested: ExchangeMatrikkel;
  bygningsnummer?: string;
  tiltakstype: string;
  soknadstype?: string;
  status: CaseStatus;
  beskrivelse?: string;
  mottattdato: string;
  vedtaksdato?: string;
  ferdigattestdato?: string;
}

export const PERMIT_STAGING_COLUMNS: StagingColumn[] = [
  { name: 'case_id', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'case_number', type: 'text' },
  { name: 'building_number', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'description', type: 'text' },
  { name: 'applied_date', type: 'date' },
  { name: 'decided_date', type: 'date' },
  { name: 'application_type', type: 'text' },
  { name: 'completed_date', type: 'date' },
];

const STATUSES: Record<CaseStatus, string> = {
  Mottatt: 'RECEIVED',
  'Under behandling': 'IN_PROGRESS',
  Innvilget: 'APPROVED',
  'Delvis innvilget': 'PARTLY_APPROVED',
  Avslått: 'REJECTED',
  Trukket: 'WITHDRAWN',
  Avsluttet: 'CLOSED',
  Ferdigattest: 'COMPLETED',
};
/** Statuses that only follow a decision (Trukket and Avsluttet can end a case before one). */
const DECIDED = new Set<CaseStatus>(['Innvilget', 'Delvis innvilget', 'Avslått', 'Ferdigattest']);

export function permitRow(record: PermitRecord) {
  const { cadastreId, municipality } = cadastreOf(record.eiendomByggested);
  const caseNumber = `${record.saksnummer.saksaar}/${record.saksnummer.sakssekvensnummer}`;
  if (DECIDED.has(record.status) && record.vedtaksdato === undefined) throw new RecordError(`status "${record.status}" needs a vedtaksdato`);
  if (record.vedtaksdato !== undefined && record.vedtaksdato < record.mottattdato) {
    throw new RecordError(`vedtaksdato ${record.vedtaksdato} is before mottattdato ${record.mottattdato}`);
  }
  if (record.status === 'Ferdigattest' && record.ferdigattestdato === undefined) throw new RecordError('status "Ferdigattest" needs a ferdigattestdato');
  if (record.ferdigattestdato !== undefined && record.vedtaksdato !== undefined && record.ferdigattestdato < record.vedtaksdato) {
    throw new RecordError(`ferdigattestdato ${record.ferdigattestdato} is before vedtaksdato ${record.vedtaksdato}`);
  }
  return [
    `${municipality}-${caseNumber}`,
    cadastreId,
    municipality,
    caseNumber,
    record.bygningsnummer ?? null,
    record.tiltakstype,
    STATUSES[record.status],
    record.beskrivelse ?? null,
    record.mottattdato,
    record.vedtaksdato ?? null,
    record.soknadstype ?? null,
    record.ferdigattestdato ?? null,
  ];
}

const PERMIT_MERGE: TableMerge = {
  liveTable: 'building_permit',
  keyColumn: 'case_id',
  columns: columnsAsStaged(PERMIT_STAGING_COLUMNS),
};

export const noPermits: SourceAdapter = {
  id: 'no-permits',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Building permit cases, byggesaker (nordprop JSON Lines exchange)',
  docs: 'docs/sources/no-permits.md',
  get defaultInput() {
    return inboxPath(PERMITS_FILE_NAME);
  },
  inputFileName: PERMITS_FILE_NAME,
  zipEntry: /\.jsonl?$/i,
  stagingColumns: PERMIT_STAGING_COLUMNS,
  lineRecords: { header: false },
  keyColumns: ['case_id'],
  parse: (input, { fileName }) => readJsonLines<PermitRecord>(input, { feed: 'no-permits', label: fileName, toRow: permitRow }),
  countLive: (client, scope) => countLiveRows(client, 'building_permit', scope),
  publish: publishInto(PERMIT_MERGE),
};
