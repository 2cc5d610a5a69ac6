import { createHmac, timingSafeEqual } from 'node:crypto';

/** A short HMAC-SHA256 tag (128 bits, base64url) over a text, and its constant-time check. */
export function sign(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest().subarray(0, 16).toString('base64url');
}

export function verifySignature(key: Buffer, text: string, signature: string): boolean {
  const expected = Buffer.from(sign(key, text));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
