/**
 * The countries nordprop holds registers of: the one list every country choice, loop and check
 * derives from (CLI choices, derive runs, API examples), so adding a country is one line here.
 */
export const COUNTRIES = ['NO', 'SE'] as const;

export type Country = (typeof COUNTRIES)[number];

export function isCountry(value: string): value is Country {
  return (COUNTRIES as readonly string[]).includes(value);
}
