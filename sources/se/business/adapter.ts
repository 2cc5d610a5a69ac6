import type { Readable } from 'node:stream';
import { inboxPath } from '../../inbox.js';
import type { BundleMemberRecords, ParseContext, ParsedRecord, SourceAdapter } from '../../source-adapter.js';
import { inMember, keptLinesOf, readBundle } from '../../formats/bundle.js';
import { readHeaderedRecords } from '../../formats/delimited.js';
import { InputFormatError } from '../../formats/input-error.js';
import { latin1Text, utf8Text } from '../../formats/text-encoding.js';
import { BOLAGSVERKET_OPTIONAL, BOLAGSVERKET_REQUIRED, bolagsverketValues } from './bolagsverket-record.js';
import { COMPANY_STAGING_COLUMNS } from './staging.js';
import { countLiveCompanies, countLiveCompanyGroups, publishCompanies, rejectOrphanWorkplaces } from './publish.js';
import { RegisterValueError } from '../register-value.js';
import { SCB_OPTIONAL, SCB_REQUIRED, scbValues, WORKPLACE_OPTIONAL, WORKPLACE_REQUIRED, workplaceValues } from './scb-record.js';
import { wholeCountry } from '../../input-scope.js';
import { BOLAGSVERKET_RECORDS, SCB_RECORDS } from './record-groups.js';

const isRowProblem = (error: unknown): error is Error => error instanceof RegisterValueError;

type MemberKind = 'BOLAGSVERKET' | 'SCB' | 'WORKPLACE';

/** Which register a bundle member is, from its file name as the registers publish them. */
function memberKindOf(name: string): MemberKind | undefined {
  if (/bolagsverket/i.test(name)) return 'BOLAGSVERKET';
  if (/arbetsst/i.test(name)) return 'WORKPLACE';
  if (/scb/i.test(name)) return 'SCB';
  return undefined;
}

function memberKind(name: string): MemberKind {
  const kind = memberKindOf(name);
  if (!kind) throw new InputFormatError(`${name}: not a company register file (expected bolagsverket_bulkfil*.txt, scb_bulkfil*.txt or scb_arbetsstallen*.txt)`);
  return kind;
}

const DATA_FILE = /\.(txt|csv|tsv)$/i;
const MEMBER_RECORDS: Record<MemberKind, BundleMemberRecords> = { BOLAGSVERKET: BOLAGSVERKET_RECORDS, SCB: SCB_RECORDS, WORKPLACE: SCB_RECORDS };

function readMember(kind: MemberKind, name: string, stream: Readable): AsyncIterable<ParsedRecord[]> {
  switch (kind) {
    case 'BOLAGSVERKET':
      return readHeaderedRecords(utf8Text(stream, name), {
        delimiter: ';', quote: '"', label: name, isRowProblem,
        expected: "Bolagsverket's bulk file (UTF-8, ';'-separated, quoted: organisationsidentitet;namnskyddslopnummer;…;postadress)",
        required: BOLAGSVERKET_REQUIRED, optional: BOLAGSVERKET_OPTIONAL, toRow: bolagsverketValues,
      });
    case 'SCB':
      return readHeaderedRecords(latin1Text(stream, name), {
        delimiter: '\t', quote: false, label: name, isRowProblem,
        expected: "SCB's bulk file of enterprise units (Latin-1, TAB-separated: PeOrgNr, Foretagsnamn, Gatuadress, PostNr, PostOrt, Ng1…)",
        required: SCB_REQUIRED, optional: SCB_OPTIONAL, toRow: scbValues,
      });
    case 'WORKPLACE':
      return readHeaderedRecords(latin1Text(stream, name), {
        delimiter: '\t', quote: false, label: name, isRowProblem,
        expected: 'SCB workplaces (Latin-1, TAB-separated: CFARNr, PeOrgNr, Benämning, BesöksAdress, BesöksPostOrt, "Kommun, kod", "Arbetsställestatus, kod")',
        required: WORKPLACE_REQUIRED, optional: WORKPLACE_OPTIONAL, toRow: workplaceValues,
      });
  }
}

/** On a night (`keepPosition`), only the lines of the organisations with a changed record are parsed. */
async function* readBusiness(input: Readable, { fileName, keepPosition, scratchDir }: ParseContext): AsyncGenerator<ParsedRecord[]> {
  const seen = new Set<MemberKind>();
  for await (const member of readBundle(input, fileName, { dataFile: DATA_FILE, scratchDir })) {
    const kind = memberKind(member.name);
    seen.add(kind);
    yield* inMember(member, readMember(kind, member.name, keptLinesOf(member, { header: MEMBER_RECORDS[kind].header, keepPosition })));
  }
  if (!seen.has('BOLAGSVERKET')) throw new InputFormatError(`${fileName} holds no Bolagsverket bulk file (bolagsverket_bulkfil*.txt): companies cannot be published from SCB's files alone`);
}

const BUSINESS_FILE_NAME = 'se_foretag_0000_bolagsverket_scb.tar';

/**
 * Bolagsverket's and SCB's HVD bulk files merged into one company per organisation number
 * (ISO 6523 scheme 0007), with SCB's workplaces and their visiting addresses where delivered.
 * Input: a tar of the files as downloaded (docs/sources/se-business.md).
 */
export const seBusiness: SourceAdapter = {
  id: 'se-business',
  country: 'SE',
  scopeOf: wholeCountry,
  title: 'Bolagsverket + SCB bulk files (HVD)',
  docs: 'docs/sources/se-business.md',
  // Two downloads (Bolagsverket's and SCB's zips) make one input: the operator tars them into
  // the inbox (docs/sources/se-business.md).
  get defaultInput() {
    return inboxPath(BUSINESS_FILE_NAME);
  },
  inputFileName: BUSINESS_FILE_NAME,
  zipEntry: /\.(tar|txt)$/i,
  stagingColumns: [...COMPANY_STAGING_COLUMNS],
  keyColumns: ['record_kind', 'record_key'],
  parse: readBusiness,
  bundleRecords: {
    dataFile: DATA_FILE,
    member: (name) => {
      const kind = memberKindOf(name);
      return kind && MEMBER_RECORDS[kind];
    },
    group: { staged: 'join_id', countLive: countLiveCompanyGroups },
  },
  repairStaged: rejectOrphanWorkplaces,
  countLive: (client) => countLiveCompanies(client),
  // A lost member file (SCB's workplaces, say) leaves two records of each company staged: judged after the merge.
  rowDropAfterMerge: true,
  publish: (context) => publishCompanies(context),
};
