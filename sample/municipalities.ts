/**
 * Real 2024 municipalities (numbers, names, a point inside each) and the choice of which of
 * them a sample of a given size covers.
 */
import { readSampleCsvRows } from './data-files.js';

export interface Municipality {
  kommunenummer: string;
  /** Official name as in the boundary data, e.g. `Unjárga - Nesseby`. */
  kommunenavn: string;
  /** The Norwegian form, for postal place names: `Nesseby`. */
  norwegianName: string;
  /** Two-digit county (fylke) number. */
  county: string;
  lon: number;
  lat: number;
  /** Position in the full list sorted by kommunenummer. */
  ordinal: number;
}

/** The demo areas, in this order: Oslo, Bergen, Trondheim, Kristiansand, Bærum. */
export const FEATURED_MUNICIPALITIES = ['0301', '4601', '5001', '4204', '3201'] as const;

/** Up to this many parcels, only the featured municipalities are used. */
export const DEMO_MAX_PARCELS = 10_000;
/** Beyond the demo size, one more municipality per this many parcels, up to all of them. */
export const PARCELS_PER_EXTRA_MUNICIPALITY = 800;

/** Norwegian names of the municipalities whose official name is bilingual (Sami or Kven first). */
const NORWEGIAN_NAME: Record<string, string> = {
  '1826': 'Hattfjelldal', '1841': 'Fauske', '1853': 'Evenes', '1870': 'Sortland', '1875': 'Hamarøy',
  '5001': 'Trondheim', '5007': 'Namsos', '5025': 'Røros', '5041': 'Snåsa', '5043': 'Røyrvik',
  '5503': 'Harstad', '5512': 'Tjeldsund', '5518': 'Lavangen', '5538': 'Storfjord', '5540': 'Kåfjord',
  '5544': 'Nordreisa', '5603': 'Hammerfest', '5610': 'Karasjok', '5612': 'Kautokeino',
  '5622': 'Porsanger', '5628': 'Tana', '5636': 'Nesseby',
};

let cached: Municipality[] | undefined;

/** All 357 municipalities of 2024, sorted by kommunenummer. */
export function loadMunicipalities(): Municipality[] {
  if (cached) return cached;
  const points = new Map<string, [number, number]>();
  for (const [kommunenummer, lon, lat] of readSampleCsvRows('no-municipality-centroids.csv')) {
    points.set(kommunenummer, [Number(lon), Number(lat)]);
  }
  const rows = readSampleCsvRows('no-municipalities-2024.csv').sort((a, b) => a[0].localeCompare(b[0]));
  cached = rows.map(([kommunenummer, kommunenavn], ordinal) => {
    const point = points.get(kommunenummer);
    if (!point) throw new Error(`no centroid for municipality ${kommunenummer}`);
    return {
      kommunenummer,
      kommunenavn,
      norwegianName: NORWEGIAN_NAME[kommunenummer] ?? kommunenavn,
      county: kommunenummer.slice(0, 2),
      lon: point[0],
      lat: point[1],
      ordinal,
    };
  });
  return cached;
}

export function isFeatured(kommunenummer: string): boolean {
  return (FEATURED_MUNICIPALITIES as readonly string[]).includes(kommunenummer);
}

/** All 357 municipalities, the featured ones first (the national profile's order). */
export function allMunicipalitiesFeaturedFirst(): Municipality[] {
  return selectMunicipalities(Number.MAX_SAFE_INTEGER);
}

/**
 * The municipalities a sample of `parcels` covers, featured ones first, the rest spread evenly
 * over the sorted list (so every county is represented before any gets dense).
 */
export function selectMunicipalities(parcels: number): Municipality[] {
  const all = loadMunicipalities();
  const byNumber = new Map(all.map((m) => [m.kommunenummer, m]));
  const featured = FEATURED_MUNICIPALITIES.map((k) => byNumber.get(k)!);
  const wanted =
    parcels <= DEMO_MAX_PARCELS
      ? Math.min(featured.length, Math.max(1, parcels))
      : Math.min(all.length, featured.length + Math.ceil((parcels - DEMO_MAX_PARCELS) / PARCELS_PER_EXTRA_MUNICIPALITY));
  if (wanted <= featured.length) return featured.slice(0, wanted);
  const others = all.filter((m) => !isFeatured(m.kommunenummer));
  const extra = wanted - featured.length;
  const chosen: Municipality[] = [];
  for (let k = 0; k < extra; k++) chosen.push(others[Math.floor((k * others.length) / extra)]);
  return [...featured, ...chosen];
}
