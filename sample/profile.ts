/**
 * Sample profiles: how big each register of a sample is.
 *
 * - `parcels` (the default, `--parcels N`): one knob. Norway gets N teiger and Sweden N
 *   properties, every register following at the generator's historical ratios (≈3.4 addresses
 *   per teig, mostly towns). Good for tests and demos; NOT national proportions.
 * - `national` (`--profile national [--scale S]`): each register at its own national target
 *   (NATIONAL_TARGETS) times `scale`, every municipality of both countries present at any
 *   scale, so a `--scale 0.02` run has the same mix as the national one, only fewer rows.
 *
 * The national profile reaches its targets through the plan's mix (NorwegianMix, SwedishMix)
 * rather than by scaling one count: many Norwegian matrikkelenheter are rural land without an
 * address, ordinary houses mostly have one address, farms and houses carry more outbuildings,
 * and Swedish properties more complementary buildings and tenants. The target counts are
 * statistical outcomes of those draws (within a few percent, see test/sample/profile.test.ts),
 * except the two plan sizes (Norwegian teiger, Swedish properties), which are exact.
 * docs/sample-profiles.md explains the figures and their sources.
 */

export type SampleProfileName = 'parcels' | 'national';
export const SAMPLE_PROFILES: readonly SampleProfileName[] = ['parcels', 'national'];

/**
 * National register sizes, scale 1. The first five Norwegian and the four Swedish figures are
 * the issues' (3 and 4); the rest are stated ratios of the generator (see the docs page).
 */
export const NATIONAL_TARGETS = {
  NO: {
    /** Matrikkelenheter (grunneiendommer, festegrunner, eierseksjoner): Kartverket, ≈2.6 M. */
    matrikkelenheter: 2_600_000,
    addresses: 2_600_000,
    buildings: 4_200_000,
    /** Enheter + underenheter in Brønnøysund's full downloads. */
    companies: 1_100_000,
    energyCertificates: 700_000,
  },
  SE: {
    /** Registerenheter (fastigheter and samfälligheter). */
    properties: 3_300_000,
    addresses: 2_700_000,
    buildings: 8_000_000,
    companies: 3_000_000,
  },
} as const;

/** What decides the Norwegian registers' ratios, per teig. */
export interface NorwegianMix {
  /**
   * Share of ordinary (plain) teiger that are land: farmland, forest, outfield. A land teig is
   * its own matrikkelenhet with no address and no dwelling, only 0–4 outbuildings.
   */
  landShare: { featured: number; other: number };
  /** Addresses on an ordinary teig, 0..8 (index = count). */
  plainAddressWeights: readonly number[];
  /** Outbuildings (garage, shed, barn) beside the main building, index = count. */
  annexWeights: { urban: readonly number[]; rural: readonly number[] };
  /** Buildings on a land teig, index = count. */
  landBuildingWeights: readonly number[];
  /** Chance that an address hosts a main unit (enhet); a main unit has a sub-unit at SUB_UNIT_SHARE. */
  mainUnitShare: number;
  /** Share of dwellings with an energy certificate. */
  dwellingCertificateShare: number;
}

/** The generator's historical ratios: `--parcels N` samples are byte-identical to before profiles. */
export const PARCELS_NO_MIX: NorwegianMix = {
  landShare: { featured: 0, other: 0 },
  plainAddressWeights: [0.06, 0.14, 0.15, 0.17, 0.17, 0.13, 0.09, 0.05, 0.04],
  annexWeights: { urban: [0.7, 0.25, 0.05], rural: [0.35, 0.45, 0.15, 0.05] },
  landBuildingWeights: [1],
  mainUnitShare: 0.28,
  dwellingCertificateShare: 0.4,
};

/**
 * National ratios. A third of ordinary teiger are land; a house mostly has one address (mean
 * 1.7 on an ordinary settled teig instead of 3.5); houses have more sheds and garages. The
 * shares were calibrated on generated samples (docs/sample-profiles.md has the measured ratios).
 */
export const NATIONAL_NO_MIX: NorwegianMix = {
  landShare: { featured: 0.05, other: 0.35 },
  plainAddressWeights: [0.04, 0.6, 0.2, 0.07, 0.04, 0.02, 0.015, 0.01, 0.005],
  annexWeights: { urban: [0.5, 0.35, 0.15], rural: [0.2, 0.4, 0.25, 0.1, 0.05] },
  landBuildingWeights: [0.3, 0.3, 0.2, 0.12, 0.08],
  mainUnitShare: 0.316,
  dwellingCertificateShare: 0.245,
};

/** What decides the Swedish registers' ratios, per property. */
export interface SwedishMix {
  /** Addresses of an ordinary property, index = count (0..2); null keeps the historical draw. */
  addressWeights: readonly number[] | null;
  /** Complementary buildings beside the main one, index = count (0..4); null: one in two has one. */
  complementWeights: readonly number[] | null;
  /** Share of addressed properties that house companies. */
  companyShare: number;
  /** Companies at such a property, index = count - 1; null: 1, or 2 in three of ten. */
  companyCountWeights: readonly number[] | null;
}

export const PARCELS_SE_MIX: SwedishMix = { addressWeights: null, complementWeights: null, companyShare: 0.25, companyCountWeights: null };

export const NATIONAL_SE_MIX: SwedishMix = {
  // 2.7 M addresses on 3.3 M properties: forest and farm properties have none.
  addressWeights: [0.24, 0.68, 0.08],
  // 8 M buildings: garages, sheds, barns and saunas make up most of the Swedish building layer.
  complementWeights: [0.18, 0.36, 0.28, 0.14, 0.04],
  // 3 M companies: offices and shops house several.
  companyShare: 0.56,
  companyCountWeights: [0.45, 0.25, 0.12, 0.08, 0.05, 0.03, 0.02],
};

/** Most companies one Swedish property can house (their numbers are reserved per property). */
export const MAX_SE_COMPANIES_PER_PROPERTY = 8;

/** Mean matrikkelenheter per Norwegian teig under the national mix (measured; sections make it > 1). */
export const NATIONAL_UNITS_PER_TEIG = 1.204;

export interface SampleSize {
  profile: SampleProfileName;
  /** 1 for the `parcels` profile. */
  scale: number;
  /** Norwegian teiger. */
  parcels: number;
  /** Swedish properties. */
  seProperties: number;
  noMix: NorwegianMix;
  seMix: SwedishMix;
  /** Every municipality of both countries, at any size (national profile). */
  allMunicipalities: boolean;
}

export interface SampleSizeOptions {
  profile?: SampleProfileName;
  scale?: number;
  parcels?: number;
}

export const DEFAULT_PARCELS = 5000;
/** Smallest scale: every municipality still gets a few parcels. */
export const MIN_SCALE = 0.0005;

export function resolveSampleSize(options: SampleSizeOptions): SampleSize {
  const profile = options.profile ?? 'parcels';
  if (!SAMPLE_PROFILES.includes(profile)) throw new RangeError(`unknown sample profile "${profile}" (one of ${SAMPLE_PROFILES.join(', ')})`);
  if (profile === 'parcels') {
    if (options.scale !== undefined) throw new RangeError('--scale applies to --profile national; use --parcels for the parcels profile');
    const parcels = options.parcels ?? DEFAULT_PARCELS;
    if (!Number.isInteger(parcels) || parcels < 1) throw new RangeError(`parcels must be a positive whole number, got ${parcels}`);
    return { profile, scale: 1, parcels, seProperties: parcels, noMix: PARCELS_NO_MIX, seMix: PARCELS_SE_MIX, allMunicipalities: false };
  }
  if (options.parcels !== undefined) throw new RangeError('the national profile sizes itself: use --scale, not --parcels');
  const scale = options.scale ?? 1;
  if (!Number.isFinite(scale) || scale < MIN_SCALE || scale > 1) throw new RangeError(`scale must be between ${MIN_SCALE} and 1, got ${scale}`);
  return {
    profile,
    scale,
    parcels: Math.round((NATIONAL_TARGETS.NO.matrikkelenheter * scale) / NATIONAL_UNITS_PER_TEIG),
    seProperties: Math.round(NATIONAL_TARGETS.SE.properties * scale),
    noMix: NATIONAL_NO_MIX,
    seMix: NATIONAL_SE_MIX,
    allMunicipalities: true,
  };
}

/** The national targets times the scale: what a national-profile sample should hold. */
export function expectedCounts(scale: number) {
  const times = <T extends Record<string, number>>(targets: T) =>
    Object.fromEntries(Object.entries(targets).map(([name, value]) => [name, Math.round(value * scale)])) as { [K in keyof T]: number };
  return { NO: times(NATIONAL_TARGETS.NO), SE: times(NATIONAL_TARGETS.SE) };
}
