import type { CellValue } from '../../source-adapter.js';
import { companyValues, sniAsNace } from './staging.js';
import { identityNumber, registerDate, RegisterValueError, swedishPostalCode } from '../register-value.js';

/**
 * SCB's files, both Latin-1 and TAB-separated, columns by name:
 * - the HVD bulk file of enterprise units (`scb_bulkfil_JE_*.txt`): PeOrgNr is 12 digits (`16`
 *   + organisationsnummer for a legal person, century + personnummer for a sole trader), Ng1–Ng5
 *   SNI 2007 codes, RegDatKtid `YYYYMMDD`. The `m`-prefixed twin columns are not read (their
 *   meaning is unpublished).
 * - workplaces (arbetsställen), in the column names of SCB's Företagsregistret API workplace
 *   layout (docs/sources/se-business.md): the only place SCB gives visiting addresses.
 */

export const SCB_REQUIRED = ['peorgnr', 'foretagsnamn', 'gatuadress', 'postnr', 'postort', 'ng1'] as const;
export const SCB_OPTIONAL = ['coadress', 'namn', 'ftgstat', 'jestat', 'jurform', 'ng2', 'ng3', 'ng4', 'ng5', 'regdatktid'] as const;
export type ScbColumn = (typeof SCB_REQUIRED)[number] | (typeof SCB_OPTIONAL)[number];

export const WORKPLACE_REQUIRED = ['cfarnr', 'peorgnr', 'benämning', 'besöksadress', 'besökspostort', 'kommun, kod', 'arbetsställestatus, kod'] as const;
export const WORKPLACE_OPTIONAL = ['besökspostnr', 'startdatum', 'slutdatum'] as const;
export type WorkplaceColumn = (typeof WORKPLACE_REQUIRED)[number] | (typeof WORKPLACE_OPTIONAL)[number];

const WORKPLACE_STATUS: Record<string, string> = { '0': 'NEVER_ACTIVE', '1': 'ACTIVE', '9': 'INACTIVE' };

/** `165560125790` → `5560125790`; `196001011234` (a sole trader) → `6001011234`. */
export function peOrgNr(text: string | undefined): string {
  const value = text?.trim() ?? '';
  if (!/^(16|18|19|20)\d{10}$/.test(value)) throw new RegisterValueError(`PeOrgNr "${value}" is not 12 digits starting 16 (legal person) or a century`);
  return identityNumber('PeOrgNr', value.slice(2));
}

function sni(field: string, text: string | undefined): string | null {
  const value = text?.trim() ?? '';
  if (value === '' || value === '00000') return null;
  if (!/^\d{5}$/.test(value)) throw new RegisterValueError(`${field} "${value}" is not a five-digit SNI 2007 code`);
  return sniAsNace(value);
}

export function scbValues(field: (column: ScbColumn) => string | undefined): CellValue[] {
  const orgId = peOrgNr(field('peorgnr'));
  const name = field('foretagsnamn')?.trim() || field('namn')?.trim();
  if (!name) throw new RegisterValueError('Foretagsnamn and Namn are both empty');
  const primary = sni('Ng1', field('ng1'));
  const secondary = (['ng2', 'ng3', 'ng4', 'ng5'] as const).map((column) => sni(column, field(column))).filter((c): c is string => c !== null);
  const co = field('coadress')?.trim();
  const street = field('gatuadress')?.trim();
  const jurForm = field('jurform')?.trim();
  if (jurForm && !/^\d{2}$/.test(jurForm)) throw new RegisterValueError(`JurForm "${jurForm}" is not a two-digit code`);
  return companyValues('SCB', {
    record_key: orgId,
    org_id: orgId,
    join_id: orgId,
    identity_kind: field('peorgnr')!.trim().startsWith('16') ? 'ORGNR' : 'PERSON',
    name,
    legal_form: jurForm ? `SCB-${jurForm}` : null,
    registered_date: registerDate('RegDatKtid', field('regdatktid')),
    nace_code: primary,
    secondary_nace_codes: secondary,
    register_status: field('ftgstat')?.trim() || null,
    address_lines: [co ? `c/o ${co.replace(/^c\/o\s*/i, '')}` : '', street ?? ''].filter(Boolean),
    postal_code: swedishPostalCode('PostNr', field('postnr')),
    postal_place: field('postort')?.trim() || null,
    address_country: 'SE',
  });
}

export function workplaceValues(field: (column: WorkplaceColumn) => string | undefined): CellValue[] {
  const cfar = field('cfarnr')?.trim() ?? '';
  if (!/^\d{8}$/.test(cfar)) throw new RegisterValueError(`CFARNr "${cfar}" is not an eight-digit workplace number`);
  const orgId = peOrgNr(field('peorgnr'));
  const statusCode = field('arbetsställestatus, kod')?.trim() ?? '';
  const status = WORKPLACE_STATUS[statusCode];
  if (!status) throw new RegisterValueError(`Arbetsställestatus "${statusCode}" is not 0, 1 or 9`);
  const municipality = field('kommun, kod')?.trim() ?? '';
  if (municipality && !/^\d{4}$/.test(municipality)) throw new RegisterValueError(`Kommun, kod "${municipality}" is not a four-digit kommunkod`);
  const street = field('besöksadress')?.trim();
  return companyValues('WORKPLACE', {
    record_key: cfar,
    org_id: orgId,
    join_id: orgId,
    name: field('benämning')?.trim() || null,
    register_status: status,
    address_lines: street ? [street] : [],
    postal_code: swedishPostalCode('BesöksPostNr', field('besökspostnr')),
    postal_place: field('besökspostort')?.trim() || null,
    address_country: 'SE',
    municipality_code: municipality || null,
    started_date: registerDate('Startdatum', field('startdatum')),
    ended_date: registerDate('Slutdatum', field('slutdatum')),
  });
}
