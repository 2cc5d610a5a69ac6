import type { CellValue } from '../../source-adapter.js';
import { cadastreIdFromText, SeDesignationError } from '../designation-text.js';
import { municipalityName } from '../municipality-names.js';
import { parseSwedishNumber, SwedishNumberError } from './swedish-number.js';

/**
 * One Boverket energy declaration, from either of its two shapes (the public API's JSON, the
 * register extract's columns), normalized to the staging row of `se-energy`.
 */

export const ENERGY_STAGING_COLUMNS = [
  { name: 'certificate_id', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'cadastre_ids', type: 'text[]' },
  { name: 'municipality_code', type: 'text' },
  { name: 'label', type: 'text' },
  { name: 'issued_date', type: 'date' },
  { name: 'valid_to_date', type: 'date' },
  { name: 'address_text', type: 'text' },
  { name: 'postal_code', type: 'text' },
  { name: 'postal_place', type: 'text' },
  { name: 'house_number', type: 'text' },
  { name: 'energy_performance_kwh_m2', type: 'double precision' },
  { name: 'primary_energy_kwh_m2', type: 'double precision' },
  { name: 'specific_energy_use_kwh_m2', type: 'double precision' },
  { name: 'heated_area_m2', type: 'double precision' },
  { name: 'built_year', type: 'integer' },
  { name: 'building_type', type: 'text' },
  { name: 'building_category', type: 'text' },
  { name: 'floor_count', type: 'integer' },
  { name: 'radon_measurement', type: 'text' },
  { name: 'ventilation_check', type: 'text' },
  { name: 'input_shape', type: 'text' },
];

export class DeclarationError extends Error {}

export function isDeclarationProblem(error: unknown): error is Error {
  return error instanceof DeclarationError || error instanceof SeDesignationError || error instanceof SwedishNumberError;
}

const KWH_PER_M2 = /^kWh\s*\/\s*(m²|m2|kvm)(\s+och\s+år|\s*\/\s*år|\s+per\s+år)?$/i;

function label(text: string | null | undefined): string | null {
  const value = text?.trim().toUpperCase() ?? '';
  if (value === '') return null;
  if (!/^[A-G]$/.test(value)) throw new DeclarationError(`energiklass "${text}" is not A to G`);
  return value;
}

/** `2021-01-01` (or a timestamp starting with it); the declaration is valid for ten years. */
function performedAndValidTo(text: string | null | undefined, field: string): [string | null, string | null] {
  const value = text?.trim() ?? '';
  if (value === '') return [null, null];
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(value);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  if (!match || !date || date.getUTCMonth() !== Number(match[2]) - 1 || date.getUTCDate() !== Number(match[3])) {
    throw new DeclarationError(`${field} "${text}" is not a date (YYYY-MM-DD)`);
  }
  const [, y, m, d] = match;
  // 29 February plus ten years is 28 February when that year has no leap day.
  const validDay = m === '02' && d === '29' && new Date(Date.UTC(Number(y) + 10, 1, 29)).getUTCMonth() !== 1 ? '28' : d;
  return [`${y}-${m}-${d}`, `${Number(y) + 10}-${m}-${validDay}`];
}

function year(field: string, text: string | number | null | undefined): number | null {
  const value = parseSwedishNumber(field, text);
  if (value === null) return null;
  if (!Number.isInteger(value) || value < 1000 || value > 2100) throw new DeclarationError(`${field} "${text}" is not a year`);
  return value;
}

function postalCode(text: string | null | undefined): string | null {
  const value = text?.replace(/\s/g, '') ?? '';
  if (value === '') return null;
  if (!/^\d{5}$/.test(value)) throw new DeclarationError(`postnummer "${text}" is not five digits`);
  return value;
}

const kwh = (field: string, text: string | number | null | undefined) => parseSwedishNumber(field, text, { unit: KWH_PER_M2 });
const optional = (text: string | null | undefined) => (text?.trim() ? text.trim() : null);

export interface ApiDeclarationLine {
  kommunkod: string;
  energideklaration: {
    id: number | string;
    energiklass?: string | null;
    primarenergital?: string | number | null;
    energiprestanda?: string | number | null;
    radonmatning?: string | null;
    ventilationskontroll?: string | null;
    byggnadsar?: string | number | null;
    utford?: string | null;
    fastigheter: { kommun?: string | null; fastighetsbeteckning: string; adresser?: { adress?: string | null; postnummer?: string | null; postort?: string | null }[] }[];
  };
}

/** A line of the API exchange file (`schema/exchange/se-energy-api.schema.json`). */
export function apiDeclarationValues(line: ApiDeclarationLine): CellValue[] {
  const d = line.energideklaration;
  const id = String(d.id).trim();
  if (!/^\d+$/.test(id)) throw new DeclarationError(`id "${d.id}" is not a declaration number`);
  // The answer names no municipality code; the designations belong to the municipality queried.
  const cadastreIds = d.fastigheter.map((f) => cadastreIdFromText(line.kommunkod, f.fastighetsbeteckning, f.kommun));
  const address = d.fastigheter.flatMap((f) => f.adresser ?? []).find((a) => optional(a.adress)) ?? null;
  const [issued, validTo] = performedAndValidTo(d.utford, 'utford');
  return [
    id,
    cadastreIds[0],
    [...new Set(cadastreIds)],
    line.kommunkod,
    label(d.energiklass),
    issued,
    validTo,
    optional(address?.adress),
    postalCode(address?.postnummer),
    optional(address?.postort),
    null,
    kwh('energiprestanda', d.energiprestanda),
    kwh('primarenergital', d.primarenergital),
    null,
    null,
    year('byggnadsar', d.byggnadsar),
    null,
    null,
    null,
    optional(d.radonmatning),
    optional(d.ventilationskontroll),
    'API',
  ];
}

/** The register extract's columns, by name (case-insensitive). */
export const EXTRACT_REQUIRED = ['formularid', 'idfastbet', 'idkommun'] as const;
export const EXTRACT_OPTIONAL = [
  'idadr', 'idhusnr', 'idpostnr', 'idpostort', 'egienergiklass', 'egienergiprestanda', 'egiprimarenergital', 'egispecifikenergianvandning',
  'egenatemp', 'egennybyggar', 'egenbyggnadstyp', 'egenbyggnadskat', 'egenantalplan', 'utford',
] as const;
export type ExtractColumn = (typeof EXTRACT_REQUIRED)[number] | (typeof EXTRACT_OPTIONAL)[number];

/** One extract row, given a field getter by column name. */
export function extractDeclarationValues(field: (column: ExtractColumn) => string | undefined): CellValue[] {
  const id = field('formularid')?.trim() ?? '';
  if (!/^\d+$/.test(id)) throw new DeclarationError(`FormularId "${id}" is not a declaration number`);
  const kommun = field('idkommun')?.trim() ?? '';
  if (!/^\d{3,4}$/.test(kommun)) throw new DeclarationError(`IdKommun "${kommun}" is not a kommunkod`);
  const kommunkod = kommun.padStart(4, '0');
  const designation = field('idfastbet')?.trim() ?? '';
  if (!designation) throw new DeclarationError('IdFastBet is empty');
  // IdFastBet may or may not lead with the registerområde (`UMEÅ TOLVMANSGÅRDEN 4`).
  const cadastreId = cadastreIdFromText(kommunkod, designation, municipalityName(kommunkod));
  const [issued, validTo] = performedAndValidTo(field('utford'), 'Utford');
  const floors = parseSwedishNumber('EgenAntalPlan', field('egenantalplan'));
  if (floors !== null && (!Number.isInteger(floors) || floors < 0)) throw new DeclarationError(`EgenAntalPlan "${field('egenantalplan')}" is not a whole number`);
  return [
    id,
    cadastreId,
    [cadastreId],
    kommunkod,
    label(field('egienergiklass')),
    issued,
    validTo,
    optional(field('idadr')),
    postalCode(field('idpostnr')),
    optional(field('idpostort')),
    optional(field('idhusnr')),
    kwh('EgiEnergiPrestanda', field('egienergiprestanda')),
    kwh('EgiPrimarenergital', field('egiprimarenergital')),
    kwh('EgiSpecifikEnergianvandning', field('egispecifikenergianvandning')),
    parseSwedishNumber('EgenAtemp', field('egenatemp'), { unit: /^(m²|m2|kvm)$/i }),
    year('EgenNybyggAr', field('egennybyggar')),
    optional(field('egenbyggnadstyp')),
    optional(field('egenbyggnadskat')),
    floors,
    null,
    null,
    'EXTRACT',
  ];
}
