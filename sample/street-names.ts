/**
 * Plausible Norwegian street names, unique within a municipality.
 *
 * A name is a first part and an ending (`Bjørke` + `veien`); street k of a municipality takes
 * combination (k * STRIDE + offset) mod the number of combinations, STRIDE being coprime with it,
 * so the first |combinations| streets never repeat; beyond that a qualifier (`Nordre`, ...) is
 * put in front. Nynorsk municipalities write `vegen` and `gata` for `veien` and `gata`.
 */
const FIRST_PARTS = [
  'Bjørke', 'Furu', 'Grane', 'Eike', 'Lønne', 'Ospe', 'Rogne', 'Selje', 'Hassel', 'Linde',
  'Solbakke', 'Solhaug', 'Måne', 'Stjerne', 'Fjell', 'Fjord', 'Strand', 'Sjø', 'Bekke', 'Elve',
  'Myr', 'Eng', 'Åker', 'Løvås', 'Kirke', 'Skole', 'Prestegårds', 'Mølle', 'Sag', 'Smie',
  'Gårds', 'Tun', 'Hage', 'Kløver', 'Blåbær', 'Tyttebær', 'Multe', 'Lyng', 'Einer', 'Rype',
  'Tiur', 'Ørne', 'Falke', 'Måke', 'Ærfugl', 'Reve', 'Hjorte', 'Elg', 'Ulve', 'Bjørne',
  'Haug', 'Ås', 'Dal', 'Vik', 'Nes', 'Holme', 'Brå', 'Tveit', 'Li', 'Bergs',
  'Nordlys', 'Skogs', 'Kvern', 'Stasjons', 'Torg', 'Hamne', 'Kai', 'Båt', 'Brygge', 'Sæter',
] as const;

const ENDINGS_BOKMAL = ['veien', 'gata', 'bakken', 'stien', 'lia', 'svingen', 'tunet', 'kroken', 'åsen', 'jordet'] as const;
const ENDINGS_NYNORSK = ['vegen', 'gata', 'bakken', 'stien', 'lia', 'svingen', 'tunet', 'kroken', 'åsen', 'jordet'] as const;
const QUALIFIERS = ['', 'Nordre ', 'Søndre ', 'Øvre ', 'Nedre '] as const;

const COMBINATIONS = FIRST_PARTS.length * ENDINGS_BOKMAL.length; // 700
const STRIDE = 263; // prime, does not divide 700

/** Largest number of streets a municipality can have with unique names. */
export const MAX_STREETS_PER_MUNICIPALITY = COMBINATIONS * QUALIFIERS.length;

export function streetName(streetIndex: number, offset: number, nynorsk: boolean): string {
  const qualifier = QUALIFIERS[Math.floor(streetIndex / COMBINATIONS) % QUALIFIERS.length];
  const combination = (((streetIndex % COMBINATIONS) * STRIDE) + offset) % COMBINATIONS;
  const first = FIRST_PARTS[Math.floor(combination / ENDINGS_BOKMAL.length)];
  const ending = (nynorsk ? ENDINGS_NYNORSK : ENDINGS_BOKMAL)[combination % ENDINGS_BOKMAL.length];
  return `${qualifier}${joinName(first, ending)}`;
}

/** `Ås` + `åsen` would double up; a first part ending in the ending's first letter drops one. */
function joinName(first: string, ending: string): string {
  const last = first[first.length - 1].toLowerCase();
  if (last === ending[0]) return `${first}${ending.slice(1)}`;
  return `${first}${ending}`;
}
