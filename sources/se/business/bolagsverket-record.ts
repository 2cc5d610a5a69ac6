import type { CellValue } from '../../source-adapter.js';
import { companyValues } from './staging.js';
import { identityNumber, registerDate, RegisterValueError, swedishPostalCode } from '../register-value.js';

/**
 * Bolagsverket's HVD bulk file (`bolagsverket_bulkfil.txt`): UTF-8, `;`-separated, every field
 * quoted. Inside a field, `$` separates subfields and `|` repeats, and codes carry a suffix
 * naming their code list (`AB-ORGFO`, `ORGNR-IDORG`, `LI-AVOMFO`). The key is
 * organisationsidentitet + namnskyddslöpnummer: one person can hold several sole-trader
 * registrations, so a PERSON-IDORG entry's org_id is `<personnummer>-<löpnummer>`.
 */

export const BOLAGSVERKET_REQUIRED = ['organisationsidentitet', 'namnskyddslopnummer', 'organisationsnamn', 'organisationsform', 'registreringsdatum', 'postadress'] as const;
export const BOLAGSVERKET_OPTIONAL = [
  'registreringsland', 'avregistreringsdatum', 'avregistreringsorsak', 'pagandeavvecklingselleromstruktureringsforfarande', 'verksamhetsbeskrivning',
] as const;
export type BolagsverketColumn = (typeof BOLAGSVERKET_REQUIRED)[number] | (typeof BOLAGSVERKET_OPTIONAL)[number];

const NAME_TYPES = ['FORETAGSNAMN-ORGNAM', 'NAMN-ORGNAM', 'SARS_FORNAMN-ORGNAM', 'FORNAMN_FRSPRAK-ORGNAM'];

/** `a|b||c` → the non-empty repeats, each split into its `$` subfields. */
function repeats(text: string | undefined): string[][] {
  return (text ?? '').split('|').filter((item) => item.trim() !== '').map((item) => item.split('$').map((part) => part.trim()));
}

/** `AB-ORGFO` → `AB`; a code from another list is an error, not a value. */
function code(field: string, text: string, list: string): string {
  const match = new RegExp(`^([A-Z0-9_*]+)-${list}$`).exec(text);
  if (!match) throw new RegisterValueError(`${field} "${text}" is not a ${list} code`);
  return match[1];
}

/** `<number>$<type>` → the number both registers share (join_id) and the type. */
function identityParts(text: string | undefined): { joinId: string; type: 'ORGNR-IDORG' | 'PERSON-IDORG' } {
  const parts = (text ?? '').split('$').map((part) => part.trim());
  if (parts.length !== 2) throw new RegisterValueError(`organisationsidentitet "${text ?? ''}" is not <number>$<type>`);
  const joinId = identityNumber('organisationsidentitet', parts[0]);
  if (parts[1] !== 'ORGNR-IDORG' && parts[1] !== 'PERSON-IDORG') {
    throw new RegisterValueError(`organisationsidentitet type "${parts[1]}" is neither ORGNR-IDORG nor PERSON-IDORG`);
  }
  return { joinId, type: parts[1] };
}

/** The organisation number an organisationsidentitet shares with SCB's files: its record group (sources/se/business/record-groups.ts). */
export const bolagsverketJoinId = (text: string | undefined): string => identityParts(text).joinId;

function identity(text: string | undefined, protectionNo: string): { orgId: string; joinId: string; kind: 'ORGNR' | 'PERSON' } {
  const { joinId, type } = identityParts(text);
  if (type === 'ORGNR-IDORG') return { orgId: joinId, joinId, kind: 'ORGNR' };
  if (!protectionNo) throw new RegisterValueError(`organisationsidentitet "${text}" is a sole trader without namnskyddslopnummer`);
  return { orgId: `${joinId}-${protectionNo}`, joinId, kind: 'PERSON' };
}

/** The register's current name: the first company name (or name) repeat, else the first of any type. */
function currentName(text: string | undefined): string {
  const names = repeats(text);
  for (const [, type] of names) {
    if (type && !NAME_TYPES.includes(type)) throw new RegisterValueError(`organisationsnamn type "${type}" is not an ORGNAM type`);
  }
  const chosen = names.find(([name, type]) => name && (type === 'FORETAGSNAMN-ORGNAM' || type === 'NAMN-ORGNAM')) ?? names.find(([name]) => name);
  if (!chosen) throw new RegisterValueError('organisationsnamn is empty');
  return chosen[0];
}

/** `utdelningsadress$coAdress$postort$postnummer$land`; an empty field is no address. */
function postalAddress(text: string | undefined) {
  if (!text?.replace(/\$/g, '').trim()) return {};
  const parts = text.split('$').map((part) => part.trim());
  if (parts.length !== 5) throw new RegisterValueError(`postadress "${text}" has ${parts.length} subfields, expected 5 (utdelningsadress$coAdress$postort$postnummer$land)`);
  const [street, co, place, postal, land] = parts;
  const country = land ? code('postadress land', land, 'LAND') : 'SE';
  return {
    address_lines: [co ? `c/o ${co.replace(/^c\/o\s*/i, '')}` : '', street].filter(Boolean),
    postal_code: country === 'SE' ? swedishPostalCode('postadress postnummer', postal) : postal || null,
    postal_place: place || null,
    address_country: country,
  };
}

/** `|LI-AVOMFO$2026-04-01` → `LI 2026-04-01` (several joined with `; `). */
function procedures(text: string | undefined): string | null {
  const items = repeats(text).map(([kind, date]) => `${code('pagandeAvvecklingsEllerOmstruktureringsforfarande', kind, 'AVOMFO')}${date ? ` ${registerDate('förfarande datum', date)}` : ''}`);
  return items.length ? items.join('; ') : null;
}

export function bolagsverketValues(field: (column: BolagsverketColumn) => string | undefined): CellValue[] {
  const protectionNo = field('namnskyddslopnummer')?.trim() ?? '';
  if (protectionNo && !/^\d+$/.test(protectionNo)) throw new RegisterValueError(`namnskyddslopnummer "${protectionNo}" is not a number`);
  const { orgId, joinId, kind } = identity(field('organisationsidentitet'), protectionNo);
  const form = field('organisationsform')?.trim();
  const reason = field('avregistreringsorsak')?.trim();
  return companyValues('BOLAGSVERKET', {
    record_key: orgId,
    org_id: orgId,
    join_id: joinId,
    identity_kind: kind,
    name: currentName(field('organisationsnamn')),
    legal_form: form ? code('organisationsform', form, 'ORGFO') : null,
    name_protection_no: protectionNo || null,
    registered_date: registerDate('registreringsdatum', field('registreringsdatum')),
    deleted_date: registerDate('avregistreringsdatum', field('avregistreringsdatum')),
    deregistration_reason: reason ? code('avregistreringsorsak', reason, 'AVORG') : null,
    ongoing_procedure: procedures(field('pagandeavvecklingselleromstruktureringsforfarande')),
    business_description: field('verksamhetsbeskrivning')?.trim() || null,
    ...postalAddress(field('postadress')),
  });
}
