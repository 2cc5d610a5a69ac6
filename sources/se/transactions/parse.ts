import type { CellValue } from '../../source-adapter.js';
import { RecordError } from '../../formats/json-lines.js';
import { cadastreIdFromText, SeDesignationError } from '../designation-text.js';
import { municipalityName } from '../municipality-names.js';
import type { CodeTableName } from './price-code-tables.js';
import { identityNumber, RegisterValueError } from '../register-value.js';

/** One sale of the exchange format (schema/exchange/se-transactions.schema.json) → the staging row of `se-transactions`. */

export const TRANSACTION_STAGING_COLUMNS = [
  { name: 'transaction_id', type: 'text' },
  { name: 'cadastre_id', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'registered_at', type: 'timestamptz' },
  { name: 'purchase_date', type: 'date' },
  { name: 'kind', type: 'text' },
  { name: 'register_kind', type: 'text' },
  { name: 'price_amount', type: 'numeric' },
  { name: 'share_numerator', type: 'integer' },
  { name: 'share_denominator', type: 'integer' },
  { name: 'object_type_code', type: 'text' },
  { name: 'object_type_name', type: 'text' },
  { name: 'taxation_unit_type_code', type: 'text' },
  { name: 'taxation_value', type: 'numeric' },
  { name: 'taxation_year', type: 'integer' },
  { name: 'price_coefficient', type: 'double precision' },
  /** Buyers and sellers in register order, as JSON (exploded into transaction_party, owner, person at publish). */
  { name: 'parties', type: 'jsonb' },
];

interface Share { taljare: number; namnare: number }
interface Party {
  typ: 'FYSISK_PERSON' | 'JURIDISK_PERSON';
  personId?: string;
  fodelsear?: number;
  organisationsnummer?: string;
  land?: string;
  namn: string;
  andel?: Share;
}
export interface PriceRecord {
  kopId: string;
  lanskod: string;
  kommunkod: string;
  fastighetsbeteckning: string;
  fangeskod: string;
  objekttyp: string;
  kopeskilling?: number | null;
  kopedatum?: string;
  inskrivningsdag: string;
  andel: Share;
  taxeringsenhet?: { typkod: string; taxeringsvarde: number; taxeringsar?: number };
  kopeskillingskoefficient?: number;
  kopare: Party[];
  saljare: Party[];
}

/** The API's kinds, from the fång's name in K_FANGESKOD (the codes themselves are Lantmäteriet's). */
function transferKind(fang: string): string {
  const name = fang.toLocaleLowerCase('sv-SE');
  if (/köp/.test(name)) return 'SALE';
  if (/gåva/.test(name)) return 'GIFT';
  if (/arv|bodelning|testamente/.test(name)) return 'INHERITANCE';
  if (/byte/.test(name)) return 'EXCHANGE';
  return 'OTHER';
}

function share(field: string, andel: Share | undefined): [number | null, number | null] {
  if (!andel) return [null, null];
  if (andel.taljare > andel.namnare) throw new RecordError(`${field} ${andel.taljare}/${andel.namnare} is more than the whole`);
  return [andel.taljare, andel.namnare];
}

function party(role: 'BUYER' | 'SELLER', ordinal: number, part: Party) {
  const [numerator, denominator] = share(`${role === 'BUYER' ? 'kopare' : 'saljare'}[${ordinal}].andel`, part.andel);
  if (part.typ === 'FYSISK_PERSON') {
    if (!part.personId) throw new RecordError(`${role === 'BUYER' ? 'kopare' : 'saljare'}[${ordinal}] is a person without personId`);
    return { role, ordinal, kind: 'PERSON', person_id: part.personId, name: part.namn, birth_year: part.fodelsear ?? null, org_id: null, org_name: null, org_country: null, share_numerator: numerator, share_denominator: denominator };
  }
  const country = part.land ?? 'SE';
  let orgId: string | null = part.organisationsnummer ?? null;
  if (country === 'SE') {
    try {
      orgId = identityNumber(`${role === 'BUYER' ? 'kopare' : 'saljare'}[${ordinal}].organisationsnummer`, part.organisationsnummer);
    } catch (error) {
      if (error instanceof RegisterValueError) throw new RecordError(error.message);
      throw error;
    }
  }
  return { role, ordinal, kind: 'ORGANIZATION', person_id: null, name: null, birth_year: null, org_id: orgId, org_name: part.namn, org_country: country, share_numerator: numerator, share_denominator: denominator };
}

export function priceRecordValues(record: PriceRecord, codes: ReadonlyMap<CodeTableName, ReadonlyMap<string, string>>): CellValue[] {
  const code = (table: CodeTableName, field: string, value: string) => {
    const name = codes.get(table)?.get(value);
    if (name === undefined) throw new RecordError(`${field} "${value}" is not in ${table}`);
    return name;
  };
  code('K_LANKOD', 'lanskod', record.lanskod);
  code('K_KOMKOD', 'kommunkod', record.kommunkod);
  if (!record.kommunkod.startsWith(record.lanskod)) throw new RecordError(`kommunkod ${record.kommunkod} does not lie in län ${record.lanskod}`);
  const fang = code('K_FANGESKOD', 'fangeskod', record.fangeskod);
  const objectType = code('K_OTYP', 'objekttyp', record.objekttyp);
  let cadastreId: string;
  try {
    // Converters may leave the registerområde in front (`STOCKHOLM KUNGSHOLMEN 1:2`).
    cadastreId = cadastreIdFromText(record.kommunkod, record.fastighetsbeteckning, municipalityName(record.kommunkod));
  } catch (error) {
    if (error instanceof SeDesignationError) throw new RecordError(error.message);
    throw error;
  }
  if (record.kopedatum && record.kopedatum > record.inskrivningsdag) {
    throw new RecordError(`kopedatum ${record.kopedatum} is after inskrivningsdag ${record.inskrivningsdag}`);
  }
  const kind = transferKind(fang);
  if (kind === 'SALE' && (record.kopeskilling === undefined || record.kopeskilling === null)) throw new RecordError(`a ${fang} without kopeskilling`);
  const [numerator, denominator] = share('andel', record.andel);
  const parties = [...record.kopare.map((p, i) => party('BUYER', i, p)), ...record.saljare.map((p, i) => party('SELLER', i, p))];
  return [
    record.kopId,
    cadastreId,
    record.kommunkod,
    // The lagfart's day, as midnight in Sweden.
    `${record.inskrivningsdag} 00:00:00 Europe/Stockholm`,
    record.kopedatum ?? null,
    kind,
    fang,
    record.kopeskilling ?? null,
    numerator,
    denominator,
    record.objekttyp,
    objectType,
    record.taxeringsenhet?.typkod ?? null,
    record.taxeringsenhet?.taxeringsvarde ?? null,
    record.taxeringsenhet?.taxeringsar ?? null,
    record.kopeskillingskoefficient ?? null,
    JSON.stringify(parties),
  ];
}
