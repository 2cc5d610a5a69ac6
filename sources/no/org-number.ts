/**
 * Norwegian organisation numbers (organisasjonsnummer): nine digits, the last a modulus-11 check
 * digit over the first eight with weights 3 2 7 6 5 4 3 2. Brønnøysund never issues a number
 * whose check digit would be 10. Written here rather than taken from a package: the rule is
 * five lines and the maintained packages that carry it bring whole validator suites.
 */

const WEIGHTS = [3, 2, 7, 6, 5, 4, 3, 2];

/** The check digit for eight leading digits, or null when no valid number has them. */
export function orgNumberCheckDigit(firstEight: string): number | null {
  if (!/^\d{8}$/.test(firstEight)) throw new RangeError(`expected eight digits, got "${firstEight}"`);
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(firstEight[i]) * WEIGHTS[i];
  const check = (11 - (sum % 11)) % 11;
  return check === 10 ? null : check;
}

/** Why `value` is not a valid organisation number, or null when it is. */
export function orgNumberProblem(value: string): string | null {
  if (!/^\d{9}$/.test(value)) return `organisasjonsnummer "${value}" is not nine digits`;
  const check = orgNumberCheckDigit(value.slice(0, 8));
  if (check === null || check !== Number(value[8])) return `organisasjonsnummer ${value} fails the modulus-11 check digit`;
  return null;
}
