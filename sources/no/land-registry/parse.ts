import type { CellValue, StagingColumn } from '../../source-adapter.js';
import { RecordError } from '../../formats/json-lines.js';
import { formatCadastreId, unitFromParts } from '../cadastre-id.js';
import { orgNumberProblem } from '../org-number.js';

/**
 * One grunnboksblad of the land-register exchange file (schema/exchange/no-land-registry.schema.json)
 * mapped to one staging row: the title holders and transfers as JSON in the shape of the live
 * tables, and the persons named in them apart, so names reach the `person` table and nothing else.
 * What the schema cannot say (shares that do not add up, a holder listed twice, a check digit)
 * is refused here with the reason.
 */

interface Andel {
  teller: number;
  nevner: number;
}
interface Person {
  type: 'person';
  personidentifikator: string;
  navn: string;
  fødselsår?: number;
}
interface Organisasjon {
  type: 'organisasjon';
  organisasjonsnummer: string;
  navn: string;
  land?: string;
}
type Rettighetshaver = Person | Organisasjon;
interface Part {
  rettighetshaver: Rettighetshaver;
  andel?: Andel;
}
interface Hjemmelshaver extends Part {
  andel: Andel;
  tinglysingsdato?: string;
  dokumentnummer?: string;
}
interface Overdragelse {
  dokumentnummer: string;
  tinglysingsdato: string;
  omsetningstype: string;
  vederlag?: { beløp: number; valuta: string };
  andel: Andel;
  kjøpere: Part[];
  selgere?: Part[];
}
export interface Grunnboksblad {
  matrikkelenhet: { kommunenummer: string; gardsnummer: number; bruksnummer: number; festenummer?: number; seksjonsnummer?: number };
  hjemmelshavere?: Hjemmelshaver[];
  overdragelser?: Overdragelse[];
}

export const LAND_REGISTRY_STAGING_COLUMNS: StagingColumn[] = [
  { name: 'cadastre_id', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'holders', type: 'jsonb' },
  { name: 'transfers', type: 'jsonb' },
  { name: 'persons', type: 'jsonb' },
];

/** The grunnbok's omsetningstype as the API's transaction kind. */
const TRANSACTION_KIND: Record<string, string> = {
  'Fritt salg': 'SALE',
  Gave: 'GIFT',
  Arv: 'INHERITANCE',
  Skifte: 'SETTLEMENT',
  Tvangssalg: 'FORCED_SALE',
  Ekspropriasjon: 'EXPROPRIATION',
  Annet: 'OTHER',
};

/** ISO 6523 ICD of Brønnøysundregistrene's organisation numbers. */
export const ORG_SCHEME_BRREG = '0192';

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** Exact sum of fractions (shares of thousands of sections have large denominators). */
function sumShares(shares: Andel[]): { teller: bigint; nevner: bigint } {
  let teller = 0n, nevner = 1n;
  for (const share of shares) {
    teller = teller * BigInt(share.nevner) + BigInt(share.teller) * nevner;
    nevner *= BigInt(share.nevner);
    const divisor = gcd(teller, nevner);
    teller /= divisor;
    nevner /= divisor;
  }
  return { teller, nevner };
}

const formatShare = ({ teller, nevner }: { teller: bigint | number; nevner: bigint | number }) => `${teller}/${nevner}`;

function checkShare(andel: Andel, where: string): void {
  if (andel.teller > andel.nevner) throw new RecordError(`${where}: andel ${formatShare(andel)} is more than the whole`);
}

interface PartyColumns {
  kind: 'PERSON' | 'ORGANIZATION';
  person_id: string | null;
  birth_year: number | null;
  org_scheme: string | null;
  org_id: string | null;
  org_name: string | null;
  org_country: string | null;
}

export function recordToRow(record: Grunnboksblad): CellValue[] {
  const unit = unitFromParts(record.matrikkelenhet);
  const cadastreId = formatCadastreId(unit);
  const persons = new Map<string, string>();

  const party = (holder: Rettighetshaver, where: string): PartyColumns => {
    if (holder.type === 'person') {
      if (/^\d{11}$/.test(holder.personidentifikator)) {
        throw new RecordError(`${where}: personidentifikator looks like a fødselsnummer; supply a pseudonym instead`);
      }
      const known = persons.get(holder.personidentifikator);
      if (known !== undefined && known !== holder.navn) {
        throw new RecordError(`${where}: person ${holder.personidentifikator} is named both "${known}" and "${holder.navn}"`);
      }
      persons.set(holder.personidentifikator, holder.navn);
      return { kind: 'PERSON', person_id: holder.personidentifikator, birth_year: holder.fødselsår ?? null, org_scheme: null, org_id: null, org_name: null, org_country: null };
    }
    const problem = orgNumberProblem(holder.organisasjonsnummer);
    if (problem) throw new RecordError(`${where}: ${problem}`);
    return { kind: 'ORGANIZATION', person_id: null, birth_year: null, org_scheme: ORG_SCHEME_BRREG, org_id: holder.organisasjonsnummer, org_name: holder.navn, org_country: holder.land ?? 'NO' };
  };
  const partyKey = (p: PartyColumns) => (p.kind === 'PERSON' ? `P:${p.person_id}` : `O:${p.org_id}`);

  const holders = (record.hjemmelshavere ?? []).map((holder, i) => {
    const where = `hjemmelshavere[${i}]`;
    checkShare(holder.andel, where);
    const columns = party(holder.rettighetshaver, where);
    return {
      owner_key: `${cadastreId}|${partyKey(columns)}`,
      ...columns,
      share_numerator: holder.andel.teller,
      share_denominator: holder.andel.nevner,
      registered_at: holder.tinglysingsdato ?? null,
    };
  });
  const seen = new Set<string>();
  for (const holder of holders) {
    if (seen.has(holder.owner_key)) throw new RecordError(`hjemmelshavere: ${holder.owner_key.split('|')[1]} is listed twice`);
    seen.add(holder.owner_key);
  }
  if (holders.length) {
    const total = sumShares(record.hjemmelshavere!.map((h) => h.andel));
    if (total.teller !== total.nevner) throw new RecordError(`hjemmelshavere: the shares sum to ${formatShare(total)}, not 1`);
  }

  const documents = new Set<string>();
  const transfers = (record.overdragelser ?? []).map((transfer, i) => {
    const where = `overdragelser[${i}]`;
    if (documents.has(transfer.dokumentnummer)) throw new RecordError(`${where}: dokumentnummer ${transfer.dokumentnummer} is listed twice`);
    documents.add(transfer.dokumentnummer);
    checkShare(transfer.andel, where);
    const buyerShares = transfer.kjøpere.map((buyer) => buyer.andel ?? null);
    if (buyerShares.every((share) => share !== null)) {
      const total = sumShares(buyerShares as Andel[]);
      const expected = sumShares([transfer.andel]);
      if (total.teller !== expected.teller || total.nevner !== expected.nevner) {
        throw new RecordError(`${where}: the buyers' shares sum to ${formatShare(total)}, the transfer is of ${formatShare(transfer.andel)}`);
      }
    }
    const parties = (role: 'BUYER' | 'SELLER', list: Part[]) =>
      list.map((p, ordinal) => {
        if (p.andel) checkShare(p.andel, `${where} ${role.toLowerCase()} ${ordinal}`);
        return { role, ordinal, ...party(p.rettighetshaver, `${where} ${role.toLowerCase()} ${ordinal}`), share_numerator: p.andel?.teller ?? null, share_denominator: p.andel?.nevner ?? null };
      });
    return {
      transaction_id: `${cadastreId}|${transfer.dokumentnummer}`,
      document_number: transfer.dokumentnummer,
      registered_at: transfer.tinglysingsdato,
      kind: TRANSACTION_KIND[transfer.omsetningstype],
      register_kind: transfer.omsetningstype,
      price_amount: transfer.vederlag?.beløp ?? null,
      price_currency: transfer.vederlag?.valuta ?? null,
      share_numerator: transfer.andel.teller,
      share_denominator: transfer.andel.nevner,
      parties: [...parties('BUYER', transfer.kjøpere), ...parties('SELLER', transfer.selgere ?? [])],
    };
  });

  return [
    cadastreId,
    unit.kommunenummer,
    JSON.stringify(holders),
    JSON.stringify(transfers),
    JSON.stringify([...persons].map(([person_id, name]) => ({ person_id, name }))),
  ];
}
