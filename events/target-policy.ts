import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may go (docs/webhooks.md, "Where webhooks may go"). A subscriber names the URL,
 * so without a check a subscription could aim the service's own POSTs at its network: the
 * loopback interface, the private LAN, the cloud metadata service. Only global unicast
 * addresses are allowed, plus the hosts and ranges an operator names
 * (NORDPROP_WEBHOOK_ALLOWED_HOSTS). The API checks the URL when a subscription is made; each
 * delivery checks again when it connects ({@link TargetPolicy.lookup}), since the DNS answer
 * may have changed in between (DNS rebinding).
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a host name. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver, as node:net uses it (getaddrinfo: the hosts file, then DNS). */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/**
 * A URL or address the policy refuses. `permanent`: no later DNS answer can change it (an
 * address written in the URL, a loopback name, no valid URL): a delivery fails at once instead of
 * being retried for a day. A host name that resolves to a refused address is not permanent.
 */
export class WebhookTargetRefused extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  constructor(readonly reason: string, readonly permanent: boolean) {
    super(`webhook target refused: ${reason}`);
    this.name = 'WebhookTargetRefused';
  }
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** What each special range is, for the reason given to a subscriber or recorded on an attempt. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address',
  reserved: 'a reserved address (documentation, benchmarking or future use)',
  benchmarking: 'a reserved address (benchmarking)',
  as112: 'an AS112 DNS address',
  as112v6: 'an AS112 DNS address',
  amt: 'an AMT relay address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  teredo: 'a Teredo tunnel address',
  deprecatedOrchid: 'an ORCHID address',
  orchid2: 'an ORCHID address',
  droneRemoteIdProtocolEntityTags: 'a reserved address (DRIP)',
  segmentRouting: 'a segment-routing address',
};

/** IPv6 forms that carry an IPv4 address: the IPv4 address is what is reached, so it is checked. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): { ipv4: ipaddr.IPv4; form: string } | undefined {
  const p = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (range) {
    case 'ipv4Mapped':
      return { ipv4: address.toIPv4Address(), form: 'an IPv4-mapped address' };
    case 'rfc6145':
      return { ipv4: fromWords(p[6], p[7]), form: 'an IPv4-translated address' };
    case 'rfc6052':
      // The well-known NAT64 prefix 64:ff9b::/96 ends with the IPv4 address; the local-use
      // 64:ff9b:1::/48 places it by a prefix length only the local network knows.
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? { ipv4: fromWords(p[6], p[7]), form: 'a NAT64 address' } : undefined;
    case '6to4':
      return { ipv4: fromWords(p[1], p[2]), form: 'a 6to4 address' };
    default:
      return undefined;
  }
}

/** Why an address may not be a webhook target (before any allowance), or undefined when it is a global unicast address. */
export function refusalOf(address: Address): string | undefined {
  const range = address.range();
  if (address.kind() === 'ipv4') return range === 'unicast' ? undefined : (RANGE_NAMES[range] ?? `a special-purpose address (${range})`);
  const v6 = address as ipaddr.IPv6;
  if (range === 'rfc6052' || range === 'ipv4Mapped' || range === 'rfc6145' || range === '6to4') {
    const embedded = embeddedIPv4(v6, range);
    if (!embedded) return 'a local-use NAT64 address';
    const inner = refusalOf(embedded.ipv4);
    return inner ? `${embedded.form} embedding ${embedded.ipv4.toString()}, ${inner}` : undefined;
  }
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `a special-purpose address (${range})`;
  // Global unicast is 2000::/3; everything else (the IPv4-compatible ::a.b.c.d, unassigned space) is not.
  return (v6.parts[0] & 0xe000) === 0x2000 ? undefined : 'not a global unicast address';
}

/** RFC 6761 loopback names: refused whatever they resolve to (a delivery does not even resolve them). */
const isLoopbackName = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

/** A host as the URL parser leaves it, lower case, without IPv6 brackets or a final dot. */
function bareHost(hostname: string): string {
  const host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function parseAddress(text: string): Address | undefined {
  try {
    // process(): an IPv4-mapped IPv6 address is compared as the IPv4 address it is.
    return ipaddr.process(text.replace(/%.*$/, ''));
  } catch {
    return undefined;
  }
}

export interface AllowList {
  /** Host names (lower case) whose every address is allowed. */
  hosts: Set<string>;
  /** Address ranges allowed besides the global unicast ones. */
  ranges: [Address, number][];
}

/**
 * Parses NORDPROP_WEBHOOK_ALLOWED_HOSTS entries: host names, addresses and CIDR ranges. Names and
 * addresses are normalised as in a URL (so `0x7f.1` is 127.0.0.1); an address is a one-address
 * range. Anything else (a port, a path, a scheme) is an error, so a typo does not go unnoticed.
 */
export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  for (const raw of entries.map((entry) => entry.trim()).filter(Boolean)) {
    const invalid = () => new Error(`NORDPROP_WEBHOOK_ALLOWED_HOSTS: "${raw}" is not a host name, an IP address or a CIDR range`);
    if (raw.includes('/')) {
      try {
        const [network, bits] = ipaddr.parseCIDR(raw.replace(/^\[(.*)\](\/\d+)$/, '$1$2'));
        // ::ffff:a.b.c.d/120 is the IPv4 range a.b.c.d/24 (addresses are compared as IPv4).
        const mapped = network.kind() === 'ipv6' && bits >= 96 && (network as ipaddr.IPv6).isIPv4MappedAddress();
        ranges.push(mapped ? [(network as ipaddr.IPv6).toIPv4Address(), bits - 96] : [network, bits]);
      } catch {
        throw invalid();
      }
      continue;
    }
    let url: URL;
    try {
      url = new URL(`https://${ipaddr.IPv6.isValid(raw) ? `[${raw}]` : raw}/`);
    } catch {
      throw invalid();
    }
    if (url.port !== '' || url.username !== '' || url.password !== '' || url.hostname === '') throw invalid();
    const host = bareHost(url.hostname);
    const address = parseAddress(host);
    if (address) ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    else hosts.add(host);
  }
  return { hosts, ranges };
}

/** How long the API waits for a host name's addresses when a subscription is made. */
const SUBSCRIPTION_RESOLVE_TIMEOUT_MS = 5000;

export class TargetPolicy {
  private readonly allow: AllowList;

  constructor(allowed: readonly string[] = [], private readonly resolve: Resolver = systemResolver) {
    this.allow = parseAllowList(allowed);
  }

  /** Why this address may not be reached, or undefined when it may (global unicast, or in an allowed range). */
  addressRefusal(text: string): string | undefined {
    const refusal = this.refusedAddress(text);
    return refusal && `${refusal.shown} is ${refusal.what}`;
  }

  private refusedAddress(text: string): { shown: string; what: string } | undefined {
    const address = parseAddress(text);
    if (!address) return { shown: text, what: 'not an IP address' };
    if (this.allow.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits))) return undefined;
    const what = refusalOf(address);
    if (!what) return undefined;
    return { shown: address.toString() === text ? text : `${text} (${address.toString()})`, what };
  }

  private hostAllowed(host: string): boolean {
    return this.allow.hosts.has(host);
  }

  /**
   * What needs no DNS: the URL parses (WHATWG, so `https://2130706433/`, `https://0x7f.1/` and
   * `https://[::ffff:7f00:1]/` are the addresses they denote), is HTTPS, has a host; a host that
   * is an address is allowed. Throws a permanent refusal. Returns the host (bare) and, when the
   * host is an address, true in `literal`.
   */
  checkUrl(raw: string): { url: URL; host: string; literal: boolean } {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new WebhookTargetRefused(`${JSON.stringify(raw)} is not a valid URL`, true);
    }
    if (url.protocol !== 'https:') throw new WebhookTargetRefused(`${url.protocol} URLs are not delivered (https: only)`, true);
    const host = bareHost(url.hostname);
    if (host === '') throw new WebhookTargetRefused('the URL has no host', true);
    if (parseAddress(host)) {
      const refusal = this.addressRefusal(host);
      if (refusal) throw new WebhookTargetRefused(refusal, true);
      return { url, host, literal: true };
    }
    return { url, host, literal: false };
  }

  /** Every address of `host` checked; throws a (not permanent) refusal naming the first refused one. */
  private checkAddresses(host: string, addresses: ResolvedAddress[]): void {
    for (const { address } of addresses) {
      const refusal = this.refusedAddress(address);
      if (refusal) throw new WebhookTargetRefused(`${host} resolves to ${refusal.shown}, ${refusal.what}`, false);
    }
  }

  /**
   * The check when a subscription is made: {@link checkUrl}, then a host name's addresses, every
   * one, then the name itself (`localhost` and `*.localhost` are loopback names whatever they
   * resolve to). A name that does not resolve (now) is accepted: it gives no address to check,
   * and every delivery checks the addresses it connects to anyway.
   */
  async checkSubscriptionUrl(raw: string): Promise<void> {
    const { host, literal } = this.checkUrl(raw);
    if (literal || this.hostAllowed(host)) return;
    let timer: NodeJS.Timeout | undefined;
    const addresses = await Promise.race([
      this.resolve(host).catch(() => [] as ResolvedAddress[]),
      new Promise<ResolvedAddress[]>((resolve) => (timer = setTimeout(() => resolve([]), SUBSCRIPTION_RESOLVE_TIMEOUT_MS))),
    ]).finally(() => clearTimeout(timer));
    this.checkAddresses(host, addresses);
    if (isLoopbackName(host)) throw new WebhookTargetRefused(`${host} is a loopback name`, true);
  }

  /**
   * The `lookup` for node:net/node:tls connections of a delivery: resolves the name once, checks
   * every address, and hands the connection only those checked addresses; when any address is
   * refused, none is handed over (a mixed answer is what a rebinding attack looks like) and the
   * connection fails with a {@link WebhookTargetRefused}. node:net calls no lookup for an address
   * written in the URL: {@link checkUrl} covers those before the request.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.connectAddresses(hostname, options.family).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)),
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };

  private async connectAddresses(hostname: string, family: number | string | undefined): Promise<ResolvedAddress[]> {
    const host = bareHost(hostname);
    const allowedHost = this.hostAllowed(host);
    if (!allowedHost && isLoopbackName(host)) throw new WebhookTargetRefused(`${host} is a loopback name`, true);
    const addresses = await this.resolve(host);
    if (!allowedHost) this.checkAddresses(host, addresses);
    const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
    const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
    if (usable.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host });
    return usable;
  }
}
