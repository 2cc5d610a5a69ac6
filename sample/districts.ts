/**
 * Statistical and administrative districts of an address: grunnkrets (basic statistical unit),
 * sokn (parish, with the parish council's organisation number), tettsted (urban settlement) and
 * valgkrets (polling district). Each is a function of the municipality and the parcel's zone in
 * the grid, so neighbouring addresses share districts and a number always has the same name.
 */
import { isFeatured, loadMunicipalities, type Municipality } from './municipalities.js';
import { Channel, noise } from './random.js';

export interface District {
  nummer: string;
  navn: string;
}

export interface Sokn extends District {
  organisasjonsnummer: string;
}

export interface Districts {
  grunnkrets: District;
  sokn: Sokn;
  /** Null outside urban settlements (common in rural municipalities). */
  tettsted: District | null;
  valgkrets: District;
}

const PLACE_NAMES = [
  'Korsvik', 'Søm', 'Lia', 'Haugen', 'Bråten', 'Åsen', 'Tveit', 'Moen', 'Vollen', 'Berg',
  'Nes', 'Dalen', 'Vika', 'Holmen', 'Sletta', 'Furuset', 'Grorud', 'Røa', 'Ullern', 'Bekkelaget',
  'Lunde', 'Rønningen', 'Nyborg', 'Solheim', 'Fjellstad', 'Engen', 'Bakke', 'Strømme', 'Hønefoss', 'Aker',
  'Kvernhus', 'Myra', 'Stranda', 'Haugland', 'Sandnes', 'Våge', 'Kleiva', 'Tangen', 'Skjold', 'Årstad',
  'Øvrebø', 'Nordby', 'Søndre Li', 'Vestby', 'Østby', 'Frøyland', 'Kjølberg', 'Grønli', 'Sætre', 'Hølen',
  'Lien', 'Tjern', 'Flaten', 'Kollen', 'Bjerke', 'Økern', 'Heimdal', 'Byåsen', 'Ranheim', 'Kolstad',
  'Randesund', 'Lund', 'Hånes', 'Fana', 'Laksevåg', 'Åsane', 'Arna', 'Ytrebygda', 'Stabekk', 'Jar',
] as const;

const GRUNNKRETS_SUFFIX = ['', ' nord', ' sør', ' øst', ' vest', ' sentrum', ' nordøst', ' sørvest', ' indre', ' ytre'] as const;

/** Diocese (bispedømme) number per county, the first two digits of a soknenummer. */
const DIOCESE: Record<string, string> = {
  '03': '02', '31': '03', '32': '03', '34': '04', '33': '05', '39': '05', '40': '06', '42': '06',
  '11': '07', '46': '08', '15': '09', '50': '10', '18': '11', '55': '12', '56': '12',
};

let deaneries: Map<string, number> | undefined;

/** Deanery (prosti) number of a municipality: its position among the municipalities of its diocese. */
function deanery(kommunenummer: string): number {
  if (!deaneries) {
    deaneries = new Map();
    const counters = new Map<string, number>();
    for (const m of loadMunicipalities()) {
      const diocese = DIOCESE[m.county] ?? '00';
      const next = (counters.get(diocese) ?? 0) + 1;
      counters.set(diocese, next);
      deaneries.set(m.kommunenummer, next);
    }
  }
  return deaneries.get(kommunenummer) ?? 1;
}

function place(seedHash: number, municipality: Municipality, key: number): string {
  return PLACE_NAMES[Math.floor(noise(seedHash, Channel.placeName, municipality.ordinal, key) * PLACE_NAMES.length)];
}

function zoneOf(row: number, col: number, gridCols: number, size: number): number {
  return Math.floor(row / size) * Math.ceil(gridCols / size) + Math.floor(col / size);
}

/** Nine-digit organisation number with a valid modulus-11 check digit. */
function organisationNumber(seedHash: number, municipality: Municipality, zone: number): string {
  const weights = [3, 2, 7, 6, 5, 4, 3, 2];
  let body = 97_000_000 + Math.floor(noise(seedHash, Channel.organisation, municipality.ordinal, zone) * 2_999_000);
  for (;;) {
    const digits = String(body);
    const sum = weights.reduce((acc, w, i) => acc + w * Number(digits[i]), 0);
    const check = (11 - (sum % 11)) % 11;
    if (check !== 10) return `${digits}${check}`;
    body += 1;
  }
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

export function districtsFor(
  seedHash: number,
  municipality: Municipality,
  gridCols: number,
  row: number,
  col: number,
): Districts {
  const k = municipality.kommunenummer;

  const gz = zoneOf(row, col, gridCols, 6) % 990;
  const delomrade = 1 + Math.floor(gz / 10);
  const krets = 1 + (gz % 10);
  const grunnkrets = {
    nummer: `${k}${pad(delomrade, 2)}${pad(krets, 2)}`,
    navn: `${place(seedHash, municipality, delomrade)}${GRUNNKRETS_SUFFIX[krets - 1]}`,
  };

  const sz = zoneOf(row, col, gridCols, 20);
  const sokn = {
    nummer: `${DIOCESE[municipality.county] ?? '00'}${pad(deanery(k) % 100, 2)}${pad(101 + (sz % 9800), 4)}`,
    navn: place(seedHash, municipality, 1000 + sz),
    organisasjonsnummer: organisationNumber(seedHash, municipality, sz),
  };

  const tz = zoneOf(row, col, gridCols, 15);
  let tettsted: District | null;
  if (isFeatured(k) || tz === 0) {
    tettsted = { nummer: pad(100 + municipality.ordinal * 25, 4), navn: municipality.norwegianName };
  } else if (noise(seedHash, Channel.tettsted, municipality.ordinal, tz) < 0.45) {
    tettsted = null;
  } else {
    const t = 1 + (tz % 24);
    tettsted = { nummer: pad(100 + municipality.ordinal * 25 + t, 4), navn: place(seedHash, municipality, 2000 + t) };
  }

  const vz = zoneOf(row, col, gridCols, 12);
  const valgkrets = {
    nummer: String(1 + vz),
    navn: place(seedHash, municipality, 3000 + vz).toLocaleUpperCase('nb-NO'),
  };

  return { grunnkrets, sokn, tettsted, valgkrets };
}
