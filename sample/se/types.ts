/**
 * The truth objects of the Swedish sample: what the GeoPackage writers serialise and what tests
 * check against. Coordinates are EPSG:3006 (SWEREF 99 TM) easting, northing in metres, rounded
 * to centimetres as written.
 */
import type { SwedishMix } from '../profile.js';

export type SePoint = [east: number, north: number];

/**
 * fastighet: trakt block:enhet; kvarter: kvarter enhet (no block); samfallighet: trakt S:n;
 * gemensamhetsanlaggning: trakt GA:n (etikett `ga:n`, as Lantmäteriet writes it).
 */
export type SePropertyKind = 'fastighet' | 'kvarter' | 'samfallighet' | 'gemensamhetsanlaggning';

/** One area (skifte) of a property: a row of `registerenhetsomradesyta`. */
export interface SeSampleArea {
  /** UUID of this area. */
  objektidentitet: string;
  /** 1-based area number within the property. */
  omradesnummer: number;
  /** `1:7`, or `1:7>2` for the second area of a property with several; `S:3`; `4` for a kvarter. */
  etikett: string;
  /** Closed ring (first point repeated last), counter-clockwise. */
  exterior: SePoint[];
  /** Planar area in EPSG:3006, m². */
  area: number;
}

export interface SeSampleAddress {
  /** `belagenhetsadress_objektidentitet`. */
  objektidentitet: string;
  adressplatstyp: 'Gatuadressplats';
  /** Street name, mixed case as the register writes it (`Björkgatan`). */
  adressomrade: string;
  /** Text as in the file (`12`). */
  adressplatsnummer: string;
  bokstavstillagg: string | null;
  lagestillagg: 'U' | 'UH' | 'UV' | null;
  lagestillaggsnummer: number | null;
  avvikerfranstandarden: boolean;
  avvikandeadressplatsbeteckning: string | null;
  /** Integer as the file stores it; written with leading zeros it is the 5-digit code. */
  postnummer: number;
  /** Upper case (`STOCKHOLM`). */
  postort: string;
  statusforbelagenhetsadress: 'Gällande' | 'Reserverad';
  /** `2024-03-01T10:00:00.000Z` */
  versiongiltigfran: string;
  point: SePoint;
  /** The house number a reader builds from the rules (`12A`, `12 U1`, `12-14`). */
  expectedHouseNumber: string;
}

export interface SeSampleBuilding {
  objektidentitet: string;
  objekttypnr: number;
  objekttyp: string;
  /** `objekttyp;ändamål` values, 1 to 5 of them (`Bostad;Småhus friliggande`). */
  andamal: string[];
  huvudbyggnad: 'Ja' | 'Nej';
  /** The building's number within the property (not a street number). */
  husnummer: number;
  /** One ring per part; a multipart building is written as one GeoPackage row per part. */
  parts: SePoint[][];
  /** `2023-02-21T06:00:00.000Z` */
  versiongiltigfran: string;
}

export interface SeSampleProperty {
  /** 0-based position in the sample. */
  index: number;
  /** UUID of the property (registerenhet), the register's stable key. */
  registerenhetsreferens: string;
  kind: SePropertyKind;
  /** `fastighetsområde` or `samfällighetsområde`. */
  objekttyp: string;
  kommunkod: string;
  /** Upper case, as the register writes it (`UPPLANDS VÄSBY`). */
  kommunnamn: string;
  lanskod: string;
  /** Upper case trakt or kvarter name; may contain a space (`LILLA ORMEN`). */
  trakt: string;
  /** Block as text, `S` for a samfällighet, null for a kvarter designation. */
  block: string | null;
  enhet: number;
  /** `STOCKHOLM KUNGSHOLMEN 1:2`, `UMEÅ TOLVMANSGÅRDEN 4`, `SOLNA BERGA S:3`. */
  designation: string;
  /** Normal form per docs/design.md: `0180_KUNGSHOLMEN_1_2`, `2480_TOLVMANSGÅRDEN_4`, `0184_BERGA_S_3`. */
  cadastreId: string;
  /** One or two; the second lies beside the first, across a 3 m path. */
  areas: SeSampleArea[];
  /** `2020-12-17T11:02:00.000Z` */
  senastandrad: string;
  /** Inside the first area; none for a samfällighet. */
  addresses: SeSampleAddress[];
  /** Inside the first area; none for a samfällighet. */
  buildings: SeSampleBuilding[];
  /** The plan's ratios, which the per-property registers (companies) read. */
  mix: SwedishMix;
}
