/**
 * Plausible Swedish trakt, kvarter and street names, each unique within a municipality.
 *
 * Name k of a list is base combination (b * stride + offset) mod the number of bases, the stride
 * coprime with it, with qualifier q in front: distinct for every k below bases × qualifiers.
 * Kvarter and street names use every base before the first qualifier (q = floor(k / bases),
 * b = k mod bases); trakt names interleave them (q = k mod qualifiers, b = floor(k / qualifiers)),
 * so even a demo has trakts with a space in the name (`NORRA BJÖRKBY`), which the cadastreId
 * writes as `NORRA-BJÖRKBY`. Register names (trakt, kvarter) are upper case; street names mixed case.
 */

const TRAKT_FIRST = [
  'BJÖRK', 'EK', 'LIND', 'ASP', 'AL', 'GRAN', 'TALL', 'SOL', 'STEN', 'BERG', 'HAG', 'ÅKER', 'MYR', 'SJÖ', 'BÄCK', 'LÖV',
  'ROS', 'VIK', 'NÄS', 'HOLM', 'LUND', 'DAL', 'MO', 'HED', 'ÄNG', 'KVARN', 'KYRK', 'PRÄST', 'NOR', 'SÖR', 'ÖSTER', 'VÄSTER',
] as const;
const TRAKT_ENDING = ['BY', 'STA', 'TORP', 'RUD', 'SÄTER', 'HULT', 'BODA', 'MORA', 'GÅRDEN', 'BACKA', 'ÅSEN', 'VIKEN', 'HOLMEN', 'LUNDA', 'NÄSET', 'DALEN'] as const;
const TRAKT_QUALIFIER = ['', 'NORRA ', 'SÖDRA ', 'ÖSTRA ', 'VÄSTRA ', 'STORA ', 'LILLA '] as const;

const KVARTER = [
  'ORMEN', 'SVANEN', 'GRIPEN', 'LEJONET', 'BJÖRNEN', 'VARGEN', 'RÄVEN', 'ÖRNEN', 'FALKEN', 'HJORTEN',
  'ÄLGEN', 'UGGLAN', 'TRANAN', 'GÄDDAN', 'LAXEN', 'ABBORREN', 'KRONAN', 'ANKARET', 'NYCKELN', 'SPADEN',
  'HAMMAREN', 'STJÄRNAN', 'MÅNEN', 'KLOCKAN', 'PENNAN', 'BOKEN', 'SKEPPET', 'VAGNEN', 'HJULET', 'TOLVMANSGÅRDEN',
  'RÅDHUSET', 'BRUNNEN', 'KVARNEN', 'SMEDJAN', 'BAGAREN', 'SKOMAKAREN', 'SNICKAREN', 'MURAREN', 'FISKAREN', 'JÄGAREN',
  'HERDEN', 'PLOGEN', 'HARVEN', 'SKÄRAN', 'LIEN', 'YXAN', 'SÅGEN', 'FILEN', 'TÅNGEN', 'SPIKEN',
  'LJUSET', 'LYKTAN', 'FACKLAN', 'BÅGEN', 'PILEN', 'SKÖLDEN', 'SVÄRDET', 'HJÄLMEN', 'HARPAN', 'LUTAN',
  'FLÖJTEN', 'TRUMMAN', 'GIGEN', 'ORGELN', 'PSALTAREN', 'KANNAN', 'SKÅLEN', 'BÄGAREN', 'KITTELN', 'GRYTAN',
  'HÄSTEN', 'OXEN', 'GETEN', 'BOCKEN', 'GÅSEN', 'ANKAN', 'HÖNAN', 'TUPPEN', 'DUVAN', 'KRÅKAN',
  'SKATAN', 'SPARVEN', 'FINKEN', 'TRASTEN', 'LÄRKAN', 'SVALAN', 'MÅSEN', 'TÄRNAN', 'HÄGERN', 'STORKEN',
  'EKORREN', 'HAREN', 'IGELKOTTEN', 'BÄVERN', 'UTTERN', 'MÅRDEN', 'LODJURET', 'SÄLEN', 'VALEN', 'DELFINEN',
] as const;
const KVARTER_QUALIFIER = ['', 'STORA ', 'LILLA ', 'NORRA ', 'SÖDRA ', 'ÖSTRA ', 'VÄSTRA ', 'GAMLA ', 'NYA ', 'ÖVRE ', 'NEDRE ', 'INRE ', 'YTTRE ', 'GRÖNA ', 'GYLLENE '] as const;

const STREET_FIRST = [
  'Björk', 'Ek', 'Lind', 'Asp', 'Al', 'Gran', 'Tall', 'Rönn', 'Hassel', 'Lönn', 'Sol', 'Sten', 'Berg', 'Hag', 'Åker',
  'Myr', 'Sjö', 'Bäck', 'Löv', 'Ros', 'Vik', 'Näs', 'Holm', 'Lund', 'Dal', 'Kyrk', 'Skol', 'Kvarn', 'Smed', 'Torg',
  'Hamn', 'Strand', 'Skogs', 'Ängs', 'Moss', 'Käll', 'Bruks', 'Fabriks', 'Stations', 'Prästgårds', 'Klock', 'Linné',
  'Drottning', 'Kungs', 'Prins', 'Freds', 'Rådhus', 'Storm', 'Norr', 'Söder', 'Öster', 'Väster', 'Mal', 'Lärk',
  'Syren', 'Hägg', 'Fläder', 'Nypon', 'Vallmo', 'Blåklints',
] as const;
const STREET_ENDING = ['gatan', 'vägen', 'stigen', 'gränd', 'backen', 'allén', 'leden', 'slingan'] as const;
const STREET_QUALIFIER = ['', 'Norra ', 'Södra ', 'Östra ', 'Västra ', 'Lilla ', 'Stora ', 'Nya ', 'Gamla '] as const;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const strideFor = (count: number) => [37, 41, 43, 47, 53, 59, 61, 67].find((s) => gcd(s, count) === 1)!;

function uniqueName(kind: string, k: number, offset: number, bases: number, base: (i: number) => string, qualifiers: readonly string[], interleave = false): string {
  if (k >= bases * qualifiers.length) throw new RangeError(`a municipality needs more than ${bases * qualifiers.length} unique ${kind} names`);
  const [qualifier, b] = interleave ? [k % qualifiers.length, Math.floor(k / qualifiers.length)] : [Math.floor(k / bases), k % bases];
  return qualifiers[qualifier] + base((b * strideFor(bases) + offset) % bases);
}

/** Trakt k of a municipality: `BJÖRKBY`, `NORRA EKTORP`. */
export function traktName(k: number, offset: number): string {
  const bases = TRAKT_FIRST.length * TRAKT_ENDING.length;
  return uniqueName('trakt', k, offset, bases, (i) => TRAKT_FIRST[i % TRAKT_FIRST.length] + TRAKT_ENDING[Math.floor(i / TRAKT_FIRST.length)], TRAKT_QUALIFIER, true);
}

/** Kvarter k of a municipality: `ORMEN`, `LILLA SVANEN`. */
export function kvarterName(k: number, offset: number): string {
  return uniqueName('kvarter', k, offset, KVARTER.length, (i) => KVARTER[i], KVARTER_QUALIFIER);
}

/** Street k of a municipality: `Björkgatan`, `Södra Kvarnvägen`. */
export function streetName(k: number, offset: number): string {
  const bases = STREET_FIRST.length * STREET_ENDING.length;
  return uniqueName('street', k, offset, bases, (i) => STREET_FIRST[i % STREET_FIRST.length] + STREET_ENDING[Math.floor(i / STREET_FIRST.length)], STREET_QUALIFIER);
}
