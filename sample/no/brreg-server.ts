import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A local stand-in for data.brreg.no's Enhetsregisteret API, answering in the register's real
 * shapes (HAL pages, the oppdateringer items, 410 for a deleted unit, gzipped lastned that
 * insists on its versioned media type). It holds a register a test changes between runs (or a
 * sample night's changes, business-feed.ts), and records every request so a test can check
 * what a run asked for.
 */

export type Kind = 'enheter' | 'underenheter';
type Rec = Record<string, unknown> & { organisasjonsnummer: string };

interface FeedItem {
  oppdateringsid: number;
  dato: string;
  organisasjonsnummer: string;
  endringstype: string;
}

const EMBEDDED = { enheter: 'oppdaterteEnheter', underenheter: 'oppdaterteUnderenheter' } as const;
const LINK = { enheter: 'enhet', underenheter: 'underenhet' } as const;
const MEDIA = { enheter: 'application/vnd.brreg.enhetsregisteret.enhet.v2+gzip;charset=UTF-8', underenheter: 'application/vnd.brreg.enhetsregisteret.underenhet.v2+gzip;charset=UTF-8' };

export class BrregServer {
  readonly units: Record<Kind, Map<string, Rec>> = { enheter: new Map(), underenheter: new Map() };
  /** Units gone from the register: a deleted one's link answers a stub with its slettedato, a removed one's 410. */
  readonly gone = new Map<string, { slettedato: string; removed: boolean }>();
  readonly feeds: Record<Kind, FeedItem[]> = { enheter: [], underenheter: [] };
  readonly requests: string[] = [];
  /** The real API caps a page's size; a small cap here makes a run page through. */
  pageCap = 2;
  private server?: Server;
  base = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => this.answer(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/enhetsregisteret/api`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  put(kind: Kind, record: Rec): void {
    this.units[kind].set(record.organisasjonsnummer, record);
    this.gone.delete(record.organisasjonsnummer);
  }

  /** Records a change in the feed, as the register does after it changed the unit. */
  change(kind: Kind, organisasjonsnummer: string, endringstype: string, dato = new Date().toISOString()): number {
    const all = this.feeds.enheter.length + this.feeds.underenheter.length;
    // Each feed has its own counter; sparse, as the real ids are.
    const last = this.feeds[kind].at(-1)?.oppdateringsid ?? (kind === 'enheter' ? 14757170 : 21390700);
    const oppdateringsid = last + 1 + (all % 3);
    this.feeds[kind].push({ oppdateringsid, dato, organisasjonsnummer, endringstype });
    return oppdateringsid;
  }

  /** Deleted (`Sletting`) or, with `removed`, taken out of the register altogether (`Fjernet`). */
  remove(kind: Kind, organisasjonsnummer: string, slettedato: string, removed = false): void {
    this.units[kind].delete(organisasjonsnummer);
    this.gone.set(organisasjonsnummer, { slettedato, removed });
  }

  private json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    this.requests.push(request.url ?? '');
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/wrong-shape/')) return this.json(response, 200, [{ unexpected: true }]);
    const parts = url.pathname.replace(/^\/enhetsregisteret\/api\//, '').split('/');
    const kind = (parts[0] === 'oppdateringer' ? parts[1] : parts[0]) as Kind;
    if (kind !== 'enheter' && kind !== 'underenheter') return this.json(response, 404, { error: 'not found' });

    if (parts[0] === 'oppdateringer') {
      const fromId = Number(url.searchParams.get('oppdateringsid') ?? 0);
      const fromDate = url.searchParams.get('dato');
      const size = Math.min(Number(url.searchParams.get('size') ?? 20), this.pageCap);
      const matching = this.feeds[kind].filter((item) => item.oppdateringsid >= fromId && (!fromDate || item.dato >= fromDate));
      const page = matching.slice(0, size).map((item) => ({ ...item, _links: { [LINK[kind]]: { href: `${this.base}/${kind}/${item.organisasjonsnummer}` } } }));
      const self = `${this.base}/oppdateringer/${kind}${url.search}`;
      // Caught up: the real API leaves `_embedded` out rather than sending an empty list.
      return this.json(response, 200, {
        ...(page.length ? { _embedded: { [EMBEDDED[kind]]: page } } : {}),
        _links: { first: { href: self }, self: { href: self }, ...(matching.length > size ? { next: { href: `${self}&page=1` } } : {}), last: { href: self } },
        page: { size, totalElements: matching.length, totalPages: Math.ceil(matching.length / size), number: 0 },
      });
    }
    if (parts[1] === 'lastned') {
      if (request.headers.accept !== MEDIA[kind]) return this.json(response, 406, { error: 'Not Acceptable' });
      response.writeHead(200, { 'content-type': MEDIA[kind] }).end(gzipSync(JSON.stringify([...this.units[kind].values()])));
      return;
    }
    if (parts[1]) {
      const record = this.units[kind].get(parts[1]);
      if (record) return this.json(response, 200, record);
      const gone = this.gone.get(parts[1]);
      if (gone?.removed) return this.json(response, 410, { organisasjonsnummer: parts[1], slettedato: gone.slettedato, _links: {} });
      if (gone) return this.json(response, 200, { organisasjonsnummer: parts[1], slettedato: gone.slettedato, respons_klasse: 'SlettetEnhet', _links: {} });
      return this.json(response, 404, { error: 'not found' });
    }
    const wanted = (url.searchParams.get('organisasjonsnummer') ?? '').split(',');
    const found = wanted.map((orgnr) => this.units[kind].get(orgnr)).filter((r) => r !== undefined);
    return this.json(response, 200, {
      ...(found.length ? { _embedded: { [kind]: found } } : {}),
      _links: { self: { href: `${this.base}/${kind}${url.search}` } },
      page: { size: wanted.length, totalElements: found.length, totalPages: 1, number: 0 },
    });
  }
}
