/**
 * Small value rules shared by the Swedish registers: dates (`2020-01-02` or `20200102`),
 * postal codes (five digits, printed `111 22`), and organisation / personal identity numbers
 * (ten digits with the Luhn check digit that Skatteverket and Bolagsverket use).
 */

export class RegisterValueError extends Error {}

export function registerDate(field: string, text: string | null | undefined): string | null {
  const value = text?.trim() ?? '';
  if (value === '') return null;
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value);
  if (match) {
    const [, y, m, d] = match;
    const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
    if (date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d)) return `${y}-${m}-${d}`;
  }
  throw new RegisterValueError(`${field} "${text}" is not a date (YYYY-MM-DD or YYYYMMDD)`);
}

export function swedishPostalCode(field: string, text: string | null | undefined): string | null {
  const value = text?.replace(/\s/g, '') ?? '';
  if (value === '') return null;
  if (!/^\d{5}$/.test(value)) throw new RegisterValueError(`${field} "${text}" is not a five-digit postal code`);
  return value;
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A ten-digit organisationsnummer or personnummer (hyphen allowed), check digit verified. */
export function identityNumber(field: string, text: string | null | undefined): string {
  const value = (text ?? '').trim().replace(/^(\d{6})-(\d{4})$/, '$1$2');
  if (!/^\d{10}$/.test(value)) throw new RegisterValueError(`${field} "${text ?? ''}" is not a ten-digit identity number`);
  if (!luhnValid(value)) throw new RegisterValueError(`${field} "${text}" fails its check digit`);
  return value;
}
