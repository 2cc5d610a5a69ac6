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
  /** Finished deliveries older than this are removed by the next dispatch. */
  retentionDays: number;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}="${raw}" is not a positive number`);
  return value;
}

const millis = (name: string, fallbackSeconds: number) => Math.round(positive(name, fallbackSeconds) * 1000);

export function loadDeliverySettings(): DeliverySettings {
  const coefficient = Number(process.env.NORDPROP_WEBHOOK_BACKOFF || 2);
  if (!Number.isFinite(coefficient) || coefficient < 1) throw new Error(`NORDPROP_WEBHOOK_BACKOFF="${process.env.NORDPROP_WEBHOOK_BACKOFF}" must be a number ≥ 1`);
  return {
    retry: {
      initialIntervalMs: millis('NORDPROP_WEBHOOK_RETRY_INITIAL_S', 30),
      maxIntervalMs: millis('NORDPROP_WEBHOOK_RETRY_MAX_S', 3600),
      backoffCoefficient: coefficient,
      horizonMs: millis('NORDPROP_WEBHOOK_RETRY_HORIZON_S', 24 * 3600),
    },
    timeoutMs: millis('NORDPROP_WEBHOOK_TIMEOUT_S', 10),
    caFile: process.env.NORDPROP_WEBHOOK_CA_FILE || undefined,
    retentionDays: positive('NORDPROP_WEBHOOK_RETENTION_DAYS', 90),
  };
}
