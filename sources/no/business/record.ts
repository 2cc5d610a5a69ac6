/**
 * One Enhetsregisteret record (enhet or underenhet, in the register's JSON field names) checked
 * and mapped to the `no-business` staging row. The JSON download, the CSV download (rebuilt into
 * the same nested shape) and the updates feed all come through here, so every path applies the
 * same rules and stages identical values for identical records.
 */
import { RecordError } from '../../formats/json-lines.js';
import { isJsonObject, type JsonObject } from '../../formats/json-object.js';
import type { CellValue, StagingColumn } from '../../source-adapter.js';
import { orgNumberProblem } from '../org-number.js';

export const BUSINESS_STAGING_COLUMNS: StagingColumn[] = [
  { name: 'org_id', type: 'text' },
  /** The feed's oppdateringsid; 0 for a row of a full download. */
  { name: 'update_id', type: 'bigint' },
  /** `upsert` (a whole record), `delete` (Sletting: deleted from the register) or `remove` (Fjernet). */
  { name: 'change', type: 'text' },
  { name: 'is_sub_unit', type: 'boolean' },
  { name: 'name', type: 'text' },
  { name: 'parent_org_id', type: 'text' },
  { name: 'legal_form', type: 'text' },
  { name: 'nace_code', type: 'text' },
  { name: 'nace_name', type: 'text' },
  { name: 'employees', type: 'integer' },
  { name: 'founded_date', type: 'date' },
  { name: 'registered_date', type: 'date' },
  { name: 'website', type: 'text' },
  { name: 'deleted_date', type: 'date' },
  /** `[{kind, lines, postalCode, postalPlace, municipalityCode, country}]`, exploded into company_address at publish. */
  { name: 'addresses', type: 'jsonb' },
];

export type BusinessChange = 'upsert' | 'delete' | 'remove';

/** Organisation forms only sub-units have: Bedrift, and the non-commercial workplace form. */
const SUB_UNIT_FORMS = new Set(['BEDR', 'AAFY']);



function optionalText(record: JsonObject, field: string): string | null {
  const value = record[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new RecordError(`${field} is not text: ${JSON.stringify(value)}`);
  return value.trim() || null;
}

function optionalObject(record: JsonObject, field: string): JsonObject | null {
  const value = record[field];
  if (value === undefined || value === null) return null;
  if (!isJsonObject(value)) throw new RecordError(`${field} is not an object: ${JSON.stringify(value)}`);
  return value;
}

/** An ISO date `yyyy-mm-dd` that exists in the calendar. */
function optionalDate(record: JsonObject, field: string): string | null {
  const text = optionalText(record, field);
  if (text === null) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  if (!date || date.toISOString().slice(0, 10) !== text) throw new RecordError(`${field} "${text}" is not a date yyyy-mm-dd`);
  return text;
}

function optionalCount(record: JsonObject, field: string): number | null {
  const value = record[field];
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0 || number > 2_147_483_647) {
    throw new RecordError(`${field} is not a whole number of employees: ${JSON.stringify(value)}`);
  }
  return number;
}

function orgNumber(record: JsonObject, field: string, required: boolean): string | null {
  const value = record[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw new RecordError(`${field} is missing`);
    return null;
  }
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') throw new RecordError(`${field} is not text: ${JSON.stringify(value)}`);
  const problem = orgNumberProblem(text.replace(/\s/g, ''));
  if (problem) throw new RecordError(field === 'organisasjonsnummer' ? problem : `${field}: ${problem}`);
  return text.replace(/\s/g, '');
}

export interface StagedAddress {
  kind: 'BUSINESS' | 'POSTAL';
  lines: string[];
  postalCode: string | null;
  postalPlace: string | null;
  municipalityCode: string | null;
  /** The address's own country (ISO 3166-1 alpha-2); foreign addresses occur. */
  country: string;
}

function address(record: JsonObject, field: string, kind: StagedAddress['kind']): StagedAddress | null {
  const value = optionalObject(record, field);
  if (!value) return null;
  const raw = value.adresse;
  // The JSON has a list of lines; the CSV joins them into one field.
  const lines = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/\r?\n/) : raw == null ? [] : null)
    ?.map((line) => (typeof line === 'string' ? line.trim() : null));
  if (!lines || lines.some((line) => line === null)) throw new RecordError(`${field}.adresse is not a list of lines: ${JSON.stringify(raw)}`);
  const municipalityCode = optionalText(value, 'kommunenummer');
  if (municipalityCode !== null && !/^\d{4}$/.test(municipalityCode)) throw new RecordError(`${field}.kommunenummer "${municipalityCode}" is not four digits`);
  const country = (optionalText(value, 'landkode') ?? 'NO').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) throw new RecordError(`${field}.landkode "${country}" is not an ISO country code`);
  return {
    kind,
    lines: (lines as string[]).filter((line) => line !== ''),
    postalCode: optionalText(value, 'postnummer'),
    postalPlace: optionalText(value, 'poststed'),
    municipalityCode,
    country,
  };
}

function code(record: JsonObject, field: string): { kode: string | null; beskrivelse: string | null } {
  const value = optionalObject(record, field);
  return value ? { kode: optionalText(value, 'kode'), beskrivelse: optionalText(value, 'beskrivelse') } : { kode: null, beskrivelse: null };
}

/**
 * Whether a record is a sub-unit: the file or feed it came from says so when it can; otherwise a
 * `beliggenhetsadresse` or a sub-unit organisation form does.
 */
function isSubUnit(record: JsonObject, hint: boolean | undefined, legalForm: string | null): boolean {
  if (hint !== undefined) return hint;
  return record.beliggenhetsadresse !== undefined || (legalForm !== null && SUB_UNIT_FORMS.has(legalForm));
}

/**
 * The staging values of one register record, or a RecordError with the reason it cannot be used.
 * `updateId` is the feed's oppdateringsid (0 in a full download).
 */
export function businessRecordValues(value: unknown, options: { subUnit?: boolean; updateId?: number } = {}): CellValue[] {
  if (!isJsonObject(value)) throw new RecordError(`record is not a JSON object but ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  const orgId = orgNumber(value, 'organisasjonsnummer', true)!;
  const name = optionalText(value, 'navn');
  if (!name) throw new RecordError('navn is missing');
  const legalForm = code(value, 'organisasjonsform').kode;
  const subUnit = isSubUnit(value, options.subUnit, legalForm);
  const nace = code(value, 'naeringskode1');
  const addresses = [
    address(value, subUnit ? 'beliggenhetsadresse' : 'forretningsadresse', 'BUSINESS'),
    address(value, 'postadresse', 'POSTAL'),
  ].filter((a): a is StagedAddress => a !== null);
  return [
    orgId,
    options.updateId ?? 0,
    'upsert',
    subUnit,
    name,
    orgNumber(value, 'overordnetEnhet', false),
    legalForm,
    nace.kode,
    nace.beskrivelse,
    optionalCount(value, 'antallAnsatte'),
    optionalDate(value, subUnit ? 'oppstartsdato' : 'stiftelsesdato'),
    optionalDate(value, 'registreringsdatoEnhetsregisteret'),
    optionalText(value, 'hjemmeside'),
    optionalDate(value, 'slettedato') ?? (subUnit ? optionalDate(value, 'nedleggelsesdato') : null),
    JSON.stringify(addresses),
  ];
}

/** A feed row without a record: a deletion (with its date) or a removal. */
export function businessChangeValues(orgId: string, updateId: number, change: Exclude<BusinessChange, 'upsert'>, subUnit: boolean, deletedDate: string | null): CellValue[] {
  return [orgId, updateId, change, subUnit, null, null, null, null, null, null, null, null, null, deletedDate, '[]'];
}
