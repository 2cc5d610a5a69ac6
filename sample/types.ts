/** The truth objects of the sample: what the writers serialise and what tests check against. */
import type { Districts } from './districts.js';
import type { NorwegianMix } from './profile.js';

/** A coordinate in EPSG:25833, [east, north], rounded to centimetres as written. */
export type Point = [east: number, north: number];

export interface SampleUnit {
  kommunenummer: string;
  gardsnummer: number;
  bruksnummer: number;
  festenummer: number;
  seksjonsnummer: number;
  /** True when this teig is the unit's main teig. */
  hovedteig: boolean;
  /** Normal form, e.g. `0301-208-327-0-0`. */
  cadastreId: string;
}

/**
 * plain: one unit on its own teig; secondary: the second teig of another parcel's unit;
 * shared: one teig of two units (`46/1,7`); sectioned: eierseksjoner 1..n on one teig;
 * leasehold: a festegrunn (festenummer > 0).
 */
export type ParcelKind = 'plain' | 'secondary' | 'shared' | 'sectioned' | 'leasehold';

export interface SampleAddress {
  /** Also the CSV `lokalid`. */
  adresseId: number;
  parcelIndex: number;
  kommunenummer: string;
  /** Upper case, as the register writes it. */
  kommunenavn: string;
  adressetype: 'vegadresse' | 'matrikkeladresse';
  adressekode: number | null;
  adressenavn: string | null;
  nummer: number | null;
  bokstav: string | null;
  gardsnummer: number;
  bruksnummer: number;
  festenummer: number | null;
  undernummer: number | null;
  adresseTekst: string;
  east: number;
  north: number;
  postnummer: string;
  poststed: string;
  districts: Districts;
  /** `dd.MM.yyyy HH:mm:ss` */
  oppdateringsdato: string;
  uuidAdresse: string;
}

export interface SampleParcel {
  /** 0-based position in the sample. */
  index: number;
  /** Teig lokalId; the GML id is `teig.<teigId>`. */
  teigId: number;
  kommunenummer: string;
  kommunenavn: string;
  kind: ParcelKind;
  /** Cell of the municipality's parcel grid. */
  row: number;
  col: number;
  units: SampleUnit[];
  matrikkelnummerTekst: string;
  teigMedFlereMatrikkelenheter: boolean;
  /** Closed ring (first point repeated last), counter-clockwise. */
  exterior: Point[];
  /** Closed rings, clockwise; at most one small square. */
  holes: Point[][];
  representasjonspunkt: Point;
  /** Planar area in EPSG:25833 of exterior minus holes, m². */
  area: number;
  /** `area` rounded to 0.1 m², as written to the GML. */
  lagretBeregnetAreal: number;
  noyaktighetsklasseTeig: 'Grønt' | 'Gult' | 'Rødt';
  uuidTeig: string;
  versjonId: number;
  /** `yyyy-MM-ddTHH:mm:ss` */
  oppdateringsdato: string;
  /**
   * Land (farmland, forest, outfield): an ordinary teig of its own unit with no address and no
   * dwelling (the national profile; never in the `parcels` profile).
   */
  land: boolean;
  /** The plan's ratios, which the per-teig registers (buildings, companies, certificates) read. */
  mix: NorwegianMix;
  /** Empty when the parcel was built without addresses. */
  addresses: SampleAddress[];
}
