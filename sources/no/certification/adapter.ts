import type { SourceAdapter, StagingColumn } from '../../source-adapter.js';
import { readJsonLines, RecordError } from '../../formats/json-lines.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto, columnsAsStaged } from '../../publish/single-table.js';
import { cadastreOf, type ExchangeMatrikkel } from '../exchange-matrikkel.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

/**
 * Environmental certifications of buildings (BREEAM-NOR and the like). No scheme publishes an
 * open bulk register, so nordprop defines a JSON Lines exchange file for them:
 * `schema/exchange/no-certification.schema.json`, documented in docs/exchange/no-certification.md.
 */

export const CERTIFICATION_FILE_NAME = 'Miljosertifisering_0000_Norge.jsonl';

/** One line of the exchange file, as the schema allows it. */
interface CertificationRecord {
  sertifikatnummer: string;
  ordning: string;
  versjon?: string;
  fase?: 'Prosjektering' | 'Ferdigstillelse' | 'I drift';
  klassifisering?: string;
  poengsum?: number;
  sertifiseringsdato: string;
  gyldigTil?: string;
  sertifisertAreal?: number;
  prosjektnavn?: string;
  sertifiseringsorgan?: string;
  matrikkel: ExchangeMatrikkel;
  bygningsnummer?: string;
}

export const CERTIFICATION_STAGING_COLUMNS: StagingColumn[] = [
  { name: 'certification_id', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'building_number', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'scheme', type: 'text' },
  { name: 'rating', type: 'text' },
  { name: 'certified_date', type: 'date' },
  { name: 'certified_area_m2', type: 'double precision' },
  { name: 'project_name', type: 'text' },
  { name: 'scheme_version', type: 'text' },
  { name: 'stage', type: 'text' },
  { name: 'score_pct', type: 'double precision' },
  { name: 'valid_to_date', type: 'date' },
  { name: 'certified_by', type: 'text' },
];

const STAGES = { Prosjektering: 'DESIGN', Ferdigstillelse: 'POST_CONSTRUCTION', 'I drift': 'IN_USE' } as const;

/** `Very Good` → `VERY_GOOD`: ratings as codes, like the store's other enumerations. */
const ratingCode = (rating: string | undefined) => (rating === undefined ? null : rating.toUpperCase().replace(/\s+/g, '_'));

export function certificationRow(record: CertificationRecord) {
  const { cadastreId, municipality } = cadastreOf(record.matrikkel);
  if (record.gyldigTil !== undefined && record.gyldigTil < record.sertifiseringsdato) {
    throw new RecordError(`gyldigTil ${record.gyldigTil} is before sertifiseringsdato ${record.sertifiseringsdato}`);
  }
  if (record.ordning !== 'SVANEMERKET' && record.klassifisering === undefined && record.fase !== 'Prosjektering') {
    // Only a design-stage (interim) BREEAM/LEED/WELL result may lack its rating; a final certificate always has one.
    throw new RecordError(`klassifisering is missing for a ${record.ordning} certificate`);
  }
  return [
    record.sertifikatnummer,
    cadastreId,
    record.bygningsnummer ?? null,
    municipality,
    record.ordning,
    ratingCode(record.klassifisering),
    record.sertifiseringsdato,
    record.sertifisertAreal ?? null,
    record.prosjektnavn ?? null,
    record.versjon ?? null,
    record.fase ? STAGES[record.fase] : null,
    record.poengsum ?? null,
    record.gyldigTil ?? null,
    record.sertifiseringsorgan ?? null,
  ];
}

const CERTIFICATION_MERGE: TableMerge = {
  liveTable: 'certification',
  keyColumn: 'certification_id',
  columns: columnsAsStaged(CERTIFICATION_STAGING_COLUMNS),
};

export const noCertification: SourceAdapter = {
  id: 'no-certification',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Environmental building certifications (nordprop JSON Lines exchange)',
  docs: 'docs/sources/no-certification.md',
  get defaultInput() {
    return inboxPath(CERTIFICATION_FILE_NAME);
  },
  inputFileName: CERTIFICATION_FILE_NAME,
  zipEntry: /\.jsonl?$/i,
  stagingColumns: CERTIFICATION_STAGING_COLUMNS,
  lineRecords: { header: false },
  keyColumns: ['certification_id'],
  parse: (input, { fileName }) => readJsonLines<CertificationRecord>(input, { feed: 'no-certification', label: fileName, toRow: certificationRow }),
  countLive: (client, scope) => countLiveRows(client, 'certification', scope),
  publish: publishInto(CERTIFICATION_MERGE),
};
