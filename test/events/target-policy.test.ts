import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookPoster } from '../../events/post-webhook.js';
import { parseAllowList, TargetPolicy, WebhookTargetRefused, type ResolvedAddress, type Resolver } from '../../events/target-policy.js';

/**
 * The webhook target policy on its own: which addresses a webhook may reach, how URLs are read,
 * what a subscription check and a delivery's connect-time lookup refuse. Nothing here connects
 * anywhere except a counting TCP server on 127.0.0.1 (the resolvers are injected; no test sends
 * traffic to any other address).
 */

const answers = (map: Record<string, string[]>): Resolver => async (hostname) => {
  const addresses = map[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address): ResolvedAddress => ({ address, family: net.isIP(address) }));
};

/** Each refused class, with a URL that names it and the reason the check must give. */
const REFUSED: [string, string, RegExp][] = [
  ['loopback', 'https://127.0.0.1:8443/', /127\.0\.0\.1 is a loopback address/],
  ['loopback, elsewhere in 127/8', 'https://127.8.9.10/', /127\.8\.9\.10 is a loopback address/],
  ['IPv6 loopback', 'https://[::1]/', /::1 is a loopback address/],
  ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
  ['private 10/8', 'https://10.0.0.1/', /10\.0\.0\.1 is a private address/],
  ['private 172.16/12', 'https://172.16.5.4/', /is a private address/],
  ['private 192.168/16', 'https://192.168.1.1/', /is a private address/],
  ['unique-local', 'https://[fd00::1]/', /fd00::1 is a unique-local address/],
  ['IPv6 link-local', 'https://[fe80::1]/', /fe80::1 is a link-local address/],
  ['site-local', 'https://[fec0::1]/', /is a site-local address/],
  ['multicast', 'https://224.0.0.1/', /is a multicast address/],
  ['IPv6 multicast', 'https://[ff02::1]/', /is a multicast address/],
  ['unspecified', 'https://0.0.0.0/', /0\.0\.0\.0 is an unspecified address/],
  ['IPv6 unspecified', 'https://[::]/', /:: is an unspecified address/],
  ['broadcast', 'https://255.255.255.255/', /is the broadcast address/],
  ['CGNAT 100.64/10', 'https://100.64.0.1/', /100\.64\.0\.1 is a carrier-grade NAT address/],
  ['reserved 240/4', 'https://240.0.0.1/', /is a reserved address/],
  ['documentation', 'https://192.0.2.10/', /is a reserved address/],
  ['IPv6 documentation', 'https://[2001:db8::1]/', /is a reserved address/],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/', /::ffff:7f00:1 \(127\.0\.0\.1\) is a loopback address/],
  ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/', /\(10\.0\.0\.1\) is a private address/],
  ['NAT64-embedded private', 'https://[64:ff9b::a00:1]/', /is a NAT64 address embedding 10\.0\.0\.1, a private address/],
  ['NAT64-embedded loopback', 'https://[64:ff9b::7f00:1]/', /is a NAT64 address embedding 127\.0\.0\.1, a loopback address/],
  ['local-use NAT64', 'https://[64:ff9b:1::a00:1]/', /is a local-use NAT64 address/],
  ['6to4-embedded private', 'https://[2002:a00:1::1]/', /is a 6to4 address embedding 10\.0\.0\.1, a private address/],
  ['6to4-embedded link-local', 'https://[2002:a9fe:a9fe::1]/', /embedding 169\.254\.169\.254, a link-local address/],
  ['IPv4-translated private', 'https://[::ffff:0:a00:1]/', /is an IPv4-translated address embedding 10\.0\.0\.1, a private address/],
  ['IPv4-compatible', 'https://[::127.0.0.1]/', /::7f00:1 is not a global unicast address/],
  ['Teredo', 'https://[2001::1]/', /is a Teredo tunnel address/],
  // WHATWG URL parsing turns every numeric form into the address it denotes.
  ['decimal', 'https://2130706433/', /127\.0\.0\.1 is a loopback address/],
  ['hex', 'https://0x7f.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['hex, one number', 'https://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
  ['octal', 'https://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['short form', 'https://127.1/', /127\.0\.0\.1 is a loopback address/],
  ['short form, private', 'https://10.1/', /10\.0\.0\.1 is a private address/],
  ['zero', 'https://0/', /0\.0\.0\.0 is an unspecified address/],
  ['percent-encoded', 'https://%31%32%37.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['trailing dot', 'https://127.0.0.1./', /127\.0\.0\.1 is a loopback address/],
  ['full-width digits', 'https://１２７.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['decimal link-local', 'https://2852039166/', /169\.254\.169\.254 is a link-local address/],
  ['a bare https://', 'https://', /is not a valid URL/],
  ['not https', 'http://93.184.215.14/', /http: URLs are not delivered/],
];

describe('webhook target policy', () => {
  const policy = new TargetPolicy([], answers({}));

  it('refuses every non-global-unicast address class at once, naming it, for good', () => {
    for (const [what, url, reason] of REFUSED) {
      let refused: unknown;
      try {
        policy.checkUrl(url);
      } catch (error) {
        refused = error;
      }
      expect(refused, `${what}: ${url}`).toBeInstanceOf(WebhookTargetRefused);
      expect((refused as WebhookTargetRefused).reason, `${what}: ${url}`).toMatch(reason);
      expect((refused as WebhookTargetRefused).permanent, `${what}: ${url}`).toBe(true);
    }
  });

  it('allows global unicast addresses, also behind an IPv4-mapped, NAT64 or 6to4 form', async () => {
    for (const url of ['https://93.184.215.14/hook', 'https://[2606:4700::1111]/', 'https://[::ffff:93.184.215.14]/', 'https://[64:ff9b::5db8:d70e]/', 'https://[2002:5db8:d70e::1]/', 'https://1.1.1.1:8443/x']) {
      expect(() => policy.checkUrl(url), url).not.toThrow();
      await expect(policy.checkSubscriptionUrl(url), url).resolves.toBeUndefined();
    }
  });

  it('at subscription time, a host name is refused when any of its addresses is, with the address named', async () => {
    const resolving = new TargetPolicy([], answers({
      'loopback.example.test': ['127.0.0.1'],
      'private.example.test': ['10.0.0.1'],
      'v6.example.test': ['fd12:3456::1'],
      'mixed.example.test': ['93.184.215.14', '192.168.0.10'],
      'public.example.test': ['93.184.215.14', '2606:4700::1111'],
      'localhost': ['127.0.0.1', '::1'],
      'odd.localhost': ['93.184.215.14'],
    }));
    const refusal = async (url: string) => resolving.checkSubscriptionUrl(url).then(() => undefined, (error: WebhookTargetRefused) => error);
    expect((await refusal('https://loopback.example.test/hook'))?.reason).toBe('loopback.example.test resolves to 127.0.0.1, a loopback address');
    expect((await refusal('https://private.example.test/hook'))?.reason).toBe('private.example.test resolves to 10.0.0.1, a private address');
    expect((await refusal('https://v6.example.test/hook'))?.reason).toBe('v6.example.test resolves to fd12:3456::1, a unique-local address');
    expect((await refusal('https://mixed.example.test/hook'))?.reason).toBe('mixed.example.test resolves to 192.168.0.10, a private address');
    expect((await refusal('https://localhost:8443/hook'))?.reason).toBe('localhost resolves to 127.0.0.1, a loopback address');
    expect((await refusal('https://LOCALHOST./hook'))?.reason).toBe('localhost resolves to 127.0.0.1, a loopback address');
    // A loopback name is refused whatever it resolves to (RFC 6761).
    expect((await refusal('https://odd.localhost/hook'))?.reason).toBe('odd.localhost is a loopback name');
    expect(await refusal('https://public.example.test/hook')).toBeUndefined();
    // A name that does not resolve now gives no address to check: accepted (each delivery checks).
    expect(await refusal('https://unknown.example.test/hook')).toBeUndefined();
  });

  it('the operator allows hosts, addresses and ranges (NORDPROP_WEBHOOK_ALLOWED_HOSTS)', async () => {
    const allowing = new TargetPolicy(['10.20.0.0/16', '127.0.0.1', 'hooks.internal.test', 'fd00:1::/32', '::ffff:192.168.7.0/120'], answers({
      'hooks.internal.test': ['10.99.0.1'],
      'other.internal.test': ['10.20.3.4'],
      'outside.internal.test': ['10.21.0.1'],
    }));
    for (const url of ['https://10.20.1.2/', 'https://127.0.0.1:8443/', 'https://2130706433/', 'https://[fd00:1::5]/', 'https://192.168.7.9/', 'https://[::ffff:10.20.0.9]/']) {
      expect(() => allowing.checkUrl(url), url).not.toThrow();
    }
    for (const url of ['https://10.21.0.1/', 'https://127.0.0.2/', 'https://[::1]/', 'https://[fd00:2::5]/', 'https://192.168.8.1/']) {
      expect(() => allowing.checkUrl(url), url).toThrow(WebhookTargetRefused);
    }
    await expect(allowing.checkSubscriptionUrl('https://hooks.internal.test/x')).resolves.toBeUndefined();
    await expect(allowing.checkSubscriptionUrl('https://other.internal.test/x')).resolves.toBeUndefined();
    await expect(allowing.checkSubscriptionUrl('https://outside.internal.test/x')).rejects.toThrow(/outside\.internal\.test resolves to 10\.21\.0\.1, a private address/);

    expect(parseAllowList([' localhost ', '', 'Hooks.Example.TEST.', '0x7f.1', '[::1]', '10.0.0.0/8'])).toEqual({
      hosts: new Set(['localhost', 'hooks.example.test']),
      ranges: [expect.anything(), expect.anything(), expect.anything()],
    });
    for (const bad of ['https://x.test', 'x.test:8443', 'x.test/path', '10.0.0.0/33', 'fd00::/129', 'a b']) {
      expect(() => parseAllowList([bad]), bad).toThrow(/NORDPROP_WEBHOOK_ALLOWED_HOSTS/);
    }
  });

  it('the connect-time lookup resolves once, checks every address and hands over only checked ones', async () => {
    let lookups = 0;
    const counting: Resolver = async (hostname) => {
      lookups++;
      return answers({ 'public.example.test': ['93.184.215.14', '2606:4700::1111'], 'rebound.example.test': ['93.184.215.14', '10.0.0.1'] })(hostname);
    };
    const checked = new TargetPolicy([], counting);
    const lookup = (hostname: string, options: { all?: boolean; family?: number }) =>
      new Promise<unknown>((resolve, reject) => checked.lookup(hostname, options, (error, address, family) => (error ? reject(error) : resolve(options.all ? address : { address, family }))));
    expect(await lookup('public.example.test', { all: true })).toEqual([{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::1111', family: 6 }]);
    expect(await lookup('public.example.test', { family: 6 })).toEqual({ address: '2606:4700::1111', family: 6 });
    expect(lookups).toBe(2);
    const refused = (await lookup('rebound.example.test', { all: true }).catch((error) => error)) as WebhookTargetRefused;
    expect(refused).toBeInstanceOf(WebhookTargetRefused);
    expect(refused.reason).toBe('rebound.example.test resolves to 10.0.0.1, a private address');
    expect(refused.permanent).toBe(false);
    expect(lookups).toBe(3);
    const named = await lookup('localhost', { all: true }).catch((error) => error);
    expect(named).toMatchObject({ reason: 'localhost is a loopback name', permanent: true });
    // No resolver was asked for a loopback name.
    expect(lookups).toBe(3);
  });
});

describe('a delivery (WebhookPoster) to a name that resolves to a refused address', () => {
  let server: net.Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    // Counts every TCP connection that reaches it, then hangs up (no TLS: a connection is what counts).
    server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const body = Buffer.from('{}');
  const post = (policy: TargetPolicy, url: string) => {
    const poster = new WebhookPoster(3000, undefined, policy);
    return poster.post(url, { 'content-type': 'application/cloudevents+json; charset=utf-8' }, body).finally(() => poster.close());
  };

  it('is refused at connect time, no connection is made, and the refusal says why', async () => {
    const before = connections;
    // A name that passed at subscription time and now answers 127.0.0.1 (DNS rebinding) ...
    const loopback = await post(new TargetPolicy([], answers({ 'rebind.example.test': ['127.0.0.1'] })), `https://rebind.example.test:${port}/hook`);
    expect(loopback).toMatchObject({ refused: { permanent: false }, error: `webhook target refused: rebind.example.test resolves to 127.0.0.1, a loopback address; no connection made` });
    expect(loopback.statusCode).toBeUndefined();
    // ... or a private address (never connected to: refused before any connection).
    const lan = await post(new TargetPolicy([], answers({ 'rebind.example.test': ['10.0.0.1'] })), `https://rebind.example.test:${port}/hook`);
    expect(lan).toMatchObject({ refused: { permanent: false }, error: expect.stringContaining('resolves to 10.0.0.1, a private address') });
    const mixed = await post(new TargetPolicy([], answers({ 'rebind.example.test': ['93.184.215.14', '127.0.0.1'] })), `https://rebind.example.test:${port}/hook`);
    expect(mixed).toMatchObject({ refused: { permanent: false }, error: expect.stringContaining('resolves to 127.0.0.1, a loopback address') });
    // An address in the URL never reaches a resolver: refused before the request, for good.
    const literal = await post(new TargetPolicy([], answers({})), `https://127.0.0.1:${port}/hook`);
    expect(literal).toMatchObject({ refused: { permanent: true }, error: expect.stringContaining('127.0.0.1 is a loopback address') });
    const numeric = await post(new TargetPolicy([], answers({})), `https://2130706433:${port}/hook`);
    expect(numeric).toMatchObject({ refused: { permanent: true } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(connections).toBe(before);
  });

  it('reaches the server when the operator allows 127.0.0.1 (so the count above would have seen a connection)', async () => {
    const before = connections;
    const allowed = await post(new TargetPolicy(['127.0.0.1'], answers({ 'rebind.example.test': ['127.0.0.1'] })), `https://rebind.example.test:${port}/hook`);
    // The counting server hangs up before TLS: a connection error, not a refusal.
    expect(allowed.refused).toBeUndefined();
    expect(allowed.error).toBeDefined();
    expect(connections).toBe(before + 1);
  });
});
