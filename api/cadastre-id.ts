import { ApiProblem, badRequest } from './problem.js';
import { normalSeCadastreId } from '../sources/se/cadastre-id.js';

/**
 * Norway: kommune-gnr-bnr-fnr-snr, each number as sources/no/cadastre-id.ts writes it (up to five
 * digits, no leading zeros but the municipality's). Sweden: the grammar of
 * sources/se/cadastre-id.ts, the one the cadastre source writes ids with (docs/design.md).
 */
export const NO_CADASTRE_ID_PATTERN = '^[0-9]{4}-[0-9]{1,5}-[0-9]{1,5}-[0-9]{1,5}-[0-9]{1,5}$';
const NORWEGIAN = new RegExp(NO_CADASTRE_ID_PATTERN);

/** The served country (else 404: its register is not served) and the id in its normal form (else 400). */
export function checkCountry(countries: readonly string[], country: string): string {
  if (!countries.includes(country)) throw new ApiProblem(404, 'COUNTRY_NOT_SERVED', `no register of country ${country} is served (served: ${countries.join(', ')})`);
  return country;
}

/** Leading zeros dropped from gnr, bnr, fnr and snr, as the register's ids never have them. */
function normalNorwegianId(cadastreId: string): string | null {
  if (!NORWEGIAN.test(cadastreId)) return null;
  const [kommune, ...numbers] = cadastreId.split('-');
  return [kommune, ...numbers.map((n) => String(Number(n)))].join('-');
}

export function normalCadastreId(country: string, cadastreId: string): string {
  const id = country === 'NO' ? normalNorwegianId(cadastreId) : country === 'SE' ? normalSeCadastreId(cadastreId) : null;
  if (id === null) {
    throw badRequest(
      country === 'NO'
        ? `cadastreId "${cadastreId}" is not a Norwegian id kommune-gnr-bnr-fnr-snr such as 0301-208-327-0-12`
        : `cadastreId "${cadastreId}" is not a Swedish id such as 0180_KUNGSHOLMEN_1_2, 0180_TOLVMANSGÅRDEN_4 (kvarter), 0184_BERGA_S_3 (samfällighet) or 0184_BERGA_GA_1 (gemensamhetsanläggning)`,
    );
  }
  return id;
}
