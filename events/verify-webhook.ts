import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a nordprop webhook delivery, for subscribers (docs/webhooks.md). Self-contained: it
 * needs only node:crypto, so a receiver can copy this file as it is.
 *
 * - `rawBody` must be the exact bytes received, before any JSON parsing.
 * - The signature is compared in constant time; any `v1` in the header may match (several are
 *   sent while a secret is being rotated).
 * - A timestamp more than `toleranceSeconds` (default 300) from now is refused even when the
 *   signature matches, so a captured request cannot be replayed later.
 *
 * Throws WebhookVerificationError with the reason; returns the parsed event when valid.
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** The `Service-Signature` header value. */
  header: string | string[] | undefined;
  rawBody: Buffer | string;
  secret: string;
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

export function verifyWebhook<T = unknown>(options: VerifyOptions): T {
  const header = Array.isArray(options.header) ? options.header.join(',') : options.header;
  if (!header) throw new WebhookVerificationError('missing Service-Signature header');
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined) throw new WebhookVerificationError('Service-Signature has no timestamp t=<unix seconds>');
  if (!signatures.length) throw new WebhookVerificationError('Service-Signature has no v1=<64 hex digits> signature');

  const expected = createHmac('sha256', options.secret).update(`${timestamp}.`).update(options.rawBody).digest();
  // Every candidate is compared, so the time taken does not tell which one matched.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(signature, expected) || matched;
  if (!matched) throw new WebhookVerificationError('signature does not match the body and secret');

  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError(`timestamp ${timestamp} is more than ${tolerance} s from now (${nowSeconds})`);
  }
  const text = typeof options.rawBody === 'string' ? options.rawBody : options.rawBody.toString('utf8');
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
}
