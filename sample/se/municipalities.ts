/**
 * Real Swedish municipalities (SCB codes and names, a point deep inside each real boundary)
 * and the choice of which of them a sample of a given size covers.
 */
import { readSampleCsvRows } from '../data-files.js';

export interface SeMunicipality {
  /** Four digits, text: `0114`. */
  kommunkod: string;
  /** Short name, mixed case: `Upplands Väsby`. */
  name: string;
  /** As the property register writes it: `UPPLANDS VÄSBY`. */
  kommunnamn: string;
  /** Two-digit county (län) code: `01`. */
  lanskod: string;
  /** Anchor in EPSG:3006: the point farthest from the boundary (sample/se/derive-anchors.ts). */
  east: number;
  north: number;
  /** Metres from the anchor to the nearest boundary point, less a metre. */
  clearance: number;
  /** Position in the list sorted by kommunkod. */
  ordinal: number;
}

/** The demo areas, in this order: Stockholm, Göteborg, Malmö, Uppsala, Umeå, Upplands Väsby. */
export const FEATURED_SE_MUNICIPALITIES = ['0180', '1480', '1280', '0380', '2480', '0114'] as const;
/** Up to this many properties, only the featured municipalities are used. */
export const SE_DEMO_MAX_PROPERTIES = 10_000;
/** Beyond the demo size, one more municipality per this many properties, up to all 290. */
export const SE_PROPERTIES_PER_EXTRA_MUNICIPALITY = 800;

let cached: SeMunicipality[] | undefined;

/** All 290 municipalities, sorted by kommunkod. */
export function loadSwedishMunicipalities(): SeMunicipality[] {
  if (cached) return cached;
  const anchors = new Map(readSampleCsvRows('se-municipality-anchors.csv').map(([code, east, north, clearance]) => [code, [Number(east), Number(north), Number(clearance)]]));
  const list = readSampleCsvRows('se-municipalities.csv')
    .map(([kommunkod, , name, lanskod]) => {
      const anchor = anchors.get(kommunkod);
      if (!anchor) throw new Error(`no anchor point for municipality ${kommunkod} in se-municipality-anchors.csv`);
      return { kommunkod, name, kommunnamn: name.toLocaleUpperCase('sv-SE'), lanskod, east: anchor[0], north: anchor[1], clearance: anchor[2], ordinal: 0 };
    })
    .sort((a, b) => a.kommunkod.localeCompare(b.kommunkod));
  list.forEach((municipality, ordinal) => (municipality.ordinal = ordinal));
  cached = list;
  return list;
}

export const isFeaturedSe = (kommunkod: string) => (FEATURED_SE_MUNICIPALITIES as readonly string[]).includes(kommunkod);

/** The featured municipalities first, then the others in code order, as many as the size asks for. */
export function selectSwedishMunicipalities(properties: number): SeMunicipality[] {
  const all = loadSwedishMunicipalities();
  const featured = FEATURED_SE_MUNICIPALITIES.map((code) => all.find((m) => m.kommunkod === code)!);
  const extra = properties <= SE_DEMO_MAX_PROPERTIES ? 0 : Math.ceil((properties - SE_DEMO_MAX_PROPERTIES) / SE_PROPERTIES_PER_EXTRA_MUNICIPALITY);
  const others = all.filter((m) => !isFeaturedSe(m.kommunkod)).slice(0, extra);
  return [...featured, ...others];
}
