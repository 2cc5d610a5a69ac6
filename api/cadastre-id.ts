import { ApiProblem, badRequest } from './problem.js';

// Norway: kommune-gnr-bnr-fnr-snr; Sweden: kommun_TRAKT_block_enhet or kommun_TRAKT_enhet (DESIGN.md).
const SHAPES: Record<string, RegExp> = {
  NO: /^[0-9]{4}-[0-9]{1,5}-[0-9]{1,5}-[0-9]{1,4}-[0-9]{1,4}$/,
  SE: /^[0-9]{4}_[\p{Lu}\p{N}-]+(?:_[0-9]+){1,2}$/u,
};

/** The served country (else 404: its register is not served) and the id in its normal form (else 400). */
export function checkCountry(countries: readonly string[], country: string): string {
  if (!countries.includes(country)) throw new ApiProblem(404, 'COUNTRY_NOT_SERVED', `no register of country ${country} is served (served: ${countries.join(', ')})`);
  return country;
}

export function normalCadastreId(country: string, cadastreId: string): string {
  const id = country === 'SE' ? cadastreId.toUpperCase() : cadastreId;
  if (!SHAPES[country]?.test(id)) {
    throw badRequest(
      country === 'NO'
        ? `cadastreId "${cadastreId}" is not a Norwegian id kommune-gnr-bnr-fnr-snr such as 0301-208-327-0-12`
        : `cadastreId "${cadastreId}" is not a Swedish id such as 0180_KUNGSHOLMEN_1_2`,
    );
  }
  return id;
}
