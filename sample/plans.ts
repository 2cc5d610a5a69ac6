/**
 * The Norwegian and Swedish plans of a sample: from a resolved size (the generator), or from
 * what a manifest names (truth checks against a store loaded from that sample).
 */
import { NightChannel, planNight } from './night.js';
import { planSample, type SamplePlan } from './plan.js';
import { resolveSampleSize, type SampleProfileName, type SampleSize } from './profile.js';
import { planSwedishSample, type SeSamplePlan } from './se/properties.js';

/**
 * The Norwegian and Swedish plans of a sample size (what the writers and any truth check build
 * on), on night `night` (0: the sample as generated; later nights: sample/night.ts).
 */
export function samplePlans(size: SampleSize, seed: string, night = 0): { plan: SamplePlan; sePlan: SeSamplePlan } {
  const plan = planSample(size.parcels, seed, { mix: size.noMix, allMunicipalities: size.allMunicipalities });
  const sePlan = planSwedishSample(size.seProperties, seed, { mix: size.seMix, allMunicipalities: size.allMunicipalities });
  const noNight = planNight(plan.seedHash, NightChannel.norway, plan.parcels, night);
  const seNight = planNight(sePlan.seedHash, NightChannel.sweden, sePlan.count, night);
  if (noNight) plan.night = noNight;
  if (seNight) sePlan.night = seNight;
  return { plan, sePlan };
}

/** What names a sample (its manifest has these): enough to rebuild every truth object. */
export interface SampleIdentity {
  seed: string;
  parcels: number;
  /** Absent: the `parcels` profile. */
  profile?: SampleProfileName;
  scale?: number;
  /** Absent: night 0, the sample as generated. */
  night?: number;
}

/** The plans of the sample a manifest describes (for truth checks against a loaded store). */
export function plansOfSample(sample: SampleIdentity): { plan: SamplePlan; sePlan: SeSamplePlan } {
  const size = sample.profile === 'national' ? resolveSampleSize({ profile: 'national', scale: sample.scale }) : resolveSampleSize({ parcels: sample.parcels });
  return samplePlans(size, sample.seed, sample.night ?? 0);
}

