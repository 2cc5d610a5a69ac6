/**
 * Later nights of a sample: night 0 is the sample as generated; night n + 1 is night n with
 * about 2 % of its items (Norwegian teiger, Swedish properties) changed, removed or replaced.
 * Real registers change every night, and a benchmark of a night on unchanged files says nothing
 * about the night that really happens.
 *
 * Changes are made to the items every register is written from, never to one file, so the
 * registers stay coherent: a removed teig takes its addresses, buildings, companies,
 * certificates and land-registry entries with it; a replaced one (a teig or property
 * re-registered under a new id, in the same cell of the grid) brings new ones. Per night and
 * item, one stateless draw decides (NIGHT_SHARES):
 * - removed: the item and everything on it is gone from this night on;
 * - replaced: as removed, and a new item (a new index past the plan's, with new ids) takes
 *   the same cell; it stays as it was drawn on later nights;
 * - changed: the item is rebuilt from a new random stream (seed `<seed>@night-<n>`): the same
 *   ids, location and boundary, other attributes (dates, versions, accuracy, sections, the
 *   number and position of its addresses, Swedish building parts) drawn anew. Registers that
 *   read mostly an item's index and boundary (Norwegian buildings, energy certificates,
 *   permits) see its removals and replacements, and few of these changes.
 * Registers written per municipality rather than per item (areas, zoning plans, land
 * allocations) are the same every night: they change rarely in reality, and their files are
 * small.
 *
 * Everything is a pure function of (seed, night): the same night is written byte for byte
 * again, and night n + 1 keeps every decision of night n.
 */
import { noise } from './random.js';

/** Shares of the items present the night before that each night changes. */
export const NIGHT_SHARES = { removed: 0.005, replaced: 0.005, changed: 0.008 } as const;

/** Noise channels of the nightly draws: Norway's and Sweden's are independent. */
export const NightChannel = { norway: 201, sweden: 202 } as const;

export interface SampleNight {
  night: number;
  /** Items of the plan (night 0); added items are numbered from here. */
  count: number;
  /** Items of the plan removed or replaced by this night. */
  gone: Set<number>;
  /** For an item changed and still present: the last night it changed. */
  changedOn: Map<number, number>;
  /** `hosts[k]` is the item whose cell added item `count + k` takes. */
  hosts: number[];
}

export function checkNight(night: number): number {
  if (!Number.isInteger(night) || night < 0) throw new RangeError(`night must be a whole number from 0 (the sample as generated), got ${night}`);
  return night;
}

/** The items of a plan of `count` on night `night`; undefined on night 0 (nothing differs). */
export function planNight(seedHash: number, channel: number, count: number, night: number): SampleNight | undefined {
  if (checkNight(night) === 0) return undefined;
  const { removed, replaced, changed } = NIGHT_SHARES;
  const gone = new Set<number>();
  const changedOn = new Map<number, number>();
  const hosts: number[] = [];
  for (let n = 1; n <= night; n++) {
    for (let index = 0; index < count; index++) {
      if (gone.has(index)) continue;
      const draw = noise(seedHash, channel, index, n);
      if (draw < removed + replaced) {
        gone.add(index);
        changedOn.delete(index);
        if (draw >= removed) hosts.push(index);
      } else if (draw < removed + replaced + changed) {
        changedOn.set(index, n);
      }
    }
  }
  return { night, count, gone, changedOn, hosts };
}

/** Positions to walk on this night: the plan's items, then the added ones. */
export function nightPositions(night: SampleNight | undefined, count: number): number {
  return night ? count + night.hosts.length : count;
}

/** False for an item of the plan that is gone by this night. */
export function isPresent(night: SampleNight | undefined, index: number): boolean {
  return !night || !night.gone.has(index);
}

/** Items present on this night. */
export function presentCount(night: SampleNight | undefined, count: number): number {
  return night ? count - night.gone.size + night.hosts.length : count;
}

/** The item whose cell (municipality, row, column) `index` occupies: itself, or for an added item its host. */
export function hostOf(night: SampleNight | undefined, index: number): number {
  if (!night || index < night.count) return index;
  const host = night.hosts[index - night.count];
  if (host === undefined) throw new RangeError(`item ${index} is not in night ${night.night} of this sample`);
  return host;
}

/** The seed of an item's own random stream: the sample's, or for an item changed on night n `<seed>@night-<n>`. */
export function itemSeed(seed: string, night: SampleNight | undefined, index: number): string {
  const changed = night?.changedOn.get(index);
  return changed === undefined ? seed : `${seed}@night-${changed}`;
}
