/**
 * Default limits per tier; `nordprop clients create --daily-limit / --burst-limit` override them.
 * The burst window is one second: `RateLimit-Limit` requests per second.
 */
export const TIERS = {
  sandbox: { dailyCallLimit: 1_000, burstLimit: 5 },
  basic: { dailyCallLimit: 10_000, burstLimit: 10 },
  standard: { dailyCallLimit: 100_000, burstLimit: 50 },
  enterprise: { dailyCallLimit: 1_000_000, burstLimit: 200 },
} as const;

export type Tier = keyof typeof TIERS;
export const TIER_NAMES = Object.keys(TIERS) as Tier[];
