import type { CellValue, StagingColumn } from '../../source-adapter.js';

/**
 * `se-business` stages three kinds of record in one table (Bolagsverket's register entry, SCB's
 * enterprise unit, SCB's workplace) keyed by kind and the record's own key; the publish merges
 * them into one company per organisation number in SQL, so no file is held in memory.
 */
export const COMPANY_STAGING_COLUMNS = [
  { name: 'record_kind', type: 'text' },
  { name: 'record_key', type: 'text' },
  { name: 'org_id', type: 'text' },
  /** The ten digits both registers share (organisationsnummer / personnummer). */
  { name: 'join_id', type: 'text' },
  { name: 'identity_kind', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'legal_form', type: 'text' },
  { name: 'name_protection_no', type: 'text' },
  { name: 'registered_date', type: 'date' },
  { name: 'deleted_date', type: 'date' },
  { name: 'deregistration_reason', type: 'text' },
  { name: 'ongoing_procedure', type: 'text' },
  { name: 'business_description', type: 'text' },
  { name: 'nace_code', type: 'text' },
  { name: 'secondary_nace_codes', type: 'text[]' },
  { name: 'register_status', type: 'text' },
  { name: 'address_lines', type: 'text[]' },
  { name: 'postal_code', type: 'text' },
  { name: 'postal_place', type: 'text' },
  { name: 'address_country', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'started_date', type: 'date' },
  { name: 'ended_date', type: 'date' },
] as const satisfies readonly StagingColumn[];

export type CompanyStagingColumn = (typeof COMPANY_STAGING_COLUMNS)[number]['name'];
export type CompanyRecordKind = 'BOLAGSVERKET' | 'SCB' | 'WORKPLACE';

export function companyValues(kind: CompanyRecordKind, values: Partial<Record<CompanyStagingColumn, CellValue>>): CellValue[] {
  return COMPANY_STAGING_COLUMNS.map((column) => (column.name === 'record_kind' ? kind : values[column.name] ?? null));
}

/** SNI 2007 is NACE Rev. 2 with a fifth, national digit: `62010` is written `62.010` like Norway's NACE codes. */
export function sniAsNace(code: string): string {
  return `${code.slice(0, 2)}.${code.slice(2)}`;
}
