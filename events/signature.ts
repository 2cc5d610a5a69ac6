import { createHmac } from 'node:crypto';

/** The header every delivery carries (docs/webhooks.md). */
export const SIGNATURE_HEADER = 'Service-Signature';

/** `v1`: lower-case hex HMAC-SHA256 of `<t>.<raw body>` keyed with the subscription's secret. */
export function signatureV1(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** `t=<unix seconds>,v1=<hex>`, signed at `now` (each attempt signs anew, so `t` is fresh). */
export function signatureHeader(secret: string, rawBody: Buffer | string, now: Date = new Date()): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  return `t=${timestamp},v1=${signatureV1(secret, timestamp, rawBody)}`;
}
