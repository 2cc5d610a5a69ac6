/**
 * How webhooks are delivered, from the environment (README "Configuration"). The retry
 * schedule is handed to each delivery workflow when it starts, so tests compress time by
 * configuration and the workflow runs its real retry loop.
 */
export interface RetrySchedule {
  initialIntervalMs: number;
  maxIntervalMs: number;
  backoffCoefficient: number;
  /** After this long since the first attempt, no further attempt: the delivery is FAILED. */
  horizonMs: number;
}

export interface DeliverySettings {
  retry: RetrySchedule;
  /** Per POST, connection and response included. */
  timeoutMs: number;
  /** PEM file of extra certificate authorities to trust (a receiver with a private CA). */
  caFile: string | undefined;
}

function seconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback * 1000;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}="${raw}" is not a positive number of seconds`);
  return Math.round(value * 1000);
}

export function loadDeliverySettings(): DeliverySettings {
  const coefficient = Number(process.env.NORDPROP_WEBHOOK_BACKOFF || 2);
  if (!Number.isFinite(coefficient) || coefficient < 1) throw new Error(`NORDPROP_WEBHOOK_BACKOFF="${process.env.NORDPROP_WEBHOOK_BACKOFF}" must be a number ≥ 1`);
  return {
    retry: {
      initialIntervalMs: seconds('NORDPROP_WEBHOOK_RETRY_INITIAL_S', 30),
      maxIntervalMs: seconds('NORDPROP_WEBHOOK_RETRY_MAX_S', 3600),
      backoffCoefficient: coefficient,
      horizonMs: seconds('NORDPROP_WEBHOOK_RETRY_HORIZON_S', 24 * 3600),
    },
    timeoutMs: seconds('NORDPROP_WEBHOOK_TIMEOUT_S', 10),
    caFile: process.env.NORDPROP_WEBHOOK_CA_FILE || undefined,
  };
}
