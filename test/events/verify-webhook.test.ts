import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../events/verify-webhook.js';
import { signatureHeader } from '../../events/signature.js';

/**
 * The verifier subscribers are told to use (docs/webhooks.md), against headers made by the
 * delivery's signer and, independently, by hand from the spec's recipe.
 */

const SECRET = 'whsec_3b9f1e7c5a2d8f4e6c0a9b1d7e3f5a2c';
const BODY = '{"specversion":"1.0","type":"no.service.property.owner_changed","id":"4c1f0e2a-0b6d-4f7e-9a51-2d3c8e7f6a10","data":{"country":"NO","cadastreId":"0301-208-327-0-0","changedField":"owners"}}';
const NOW = new Date('2026-11-21T02:15:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const byHand = (t: number, body = BODY, secret = SECRET) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

describe('verifyWebhook', () => {
  it('accepts a delivery signed as the spec says, and returns the parsed event', () => {
    expect(signatureHeader(SECRET, BODY, NOW)).toBe(byHand(T));
    expect(verifyWebhook({ header: byHand(T), rawBody: Buffer.from(BODY), secret: SECRET, now: NOW })).toMatchObject({ id: '4c1f0e2a-0b6d-4f7e-9a51-2d3c8e7f6a10' });
    expect(verifyWebhook({ header: byHand(T), rawBody: BODY, secret: SECRET, now: NOW })).toMatchObject({ type: 'no.service.property.owner_changed' });
  });

  it('refuses a changed body, the re-serialized JSON, another secret, and a forged or malformed header', () => {
    const cases: [string, string, string, RegExp][] = [
      [byHand(T), BODY.replace('owners', 'tenants'), SECRET, /does not match/],
      // Parsing and re-serializing changes the bytes: the raw body must be used.
      [byHand(T), JSON.stringify(JSON.parse(BODY), null, 2), SECRET, /does not match/],
      [byHand(T), BODY, 'whsec_another_secret_of_the_same_len', /does not match/],
      [byHand(T, BODY, 'whsec_another_secret_of_the_same_len'), BODY, SECRET, /does not match/],
      [byHand(T).replace(/^t=\d+/, `t=${T + 1}`), BODY, SECRET, /does not match/],
      [`v1=${'0'.repeat(64)}`, BODY, SECRET, /no timestamp/],
      [`t=${T}`, BODY, SECRET, /no v1/],
      [`t=${T},v1=abc`, BODY, SECRET, /no v1/],
      ['', BODY, SECRET, /missing/],
    ];
    for (const [header, body, secret, reason] of cases) {
      expect(() => verifyWebhook({ header, rawBody: body, secret, now: NOW }), header).toThrow(reason);
      expect(() => verifyWebhook({ header, rawBody: body, secret, now: NOW })).toThrow(WebhookVerificationError);
    }
  });

  it('refuses a correctly signed delivery more than 300 s old or ahead, and accepts one within', () => {
    expect(() => verifyWebhook({ header: byHand(T - 301), rawBody: BODY, secret: SECRET, now: NOW })).toThrow(/more than 300 s/);
    expect(() => verifyWebhook({ header: byHand(T + 301), rawBody: BODY, secret: SECRET, now: NOW })).toThrow(/more than 300 s/);
    expect(verifyWebhook({ header: byHand(T - 300), rawBody: BODY, secret: SECRET, now: NOW })).toBeTruthy();
    expect(() => verifyWebhook({ header: byHand(T - 90), rawBody: BODY, secret: SECRET, now: NOW, toleranceSeconds: 60 })).toThrow(/more than 60 s/);
  });

  it('accepts any of several v1 signatures (a secret being rotated)', () => {
    const old = byHand(T, BODY, 'whsec_the_previous_secret_value_x').split(',')[1];
    expect(verifyWebhook({ header: `${byHand(T)},${old}`, rawBody: BODY, secret: SECRET, now: NOW })).toBeTruthy();
    expect(verifyWebhook({ header: `t=${T},${old},${byHand(T).split(',')[1]}`, rawBody: BODY, secret: SECRET, now: NOW })).toBeTruthy();
  });

  it('refuses a body that is not JSON even when signed', () => {
    expect(() => verifyWebhook({ header: byHand(T, 'not json'), rawBody: 'not json', secret: SECRET, now: NOW })).toThrow(/not JSON/);
  });
});
