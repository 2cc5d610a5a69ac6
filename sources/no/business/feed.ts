/**
 * Enhetsregisteret's updates feed (`/oppdateringer/enheter`, `/oppdateringer/underenheter`), read
 * from where the store's last publish left off. The feed says only which unit changed and how
 * (`endringstype`); the unit's current record is then looked up, many at a time through the
 * search's `organisasjonsnummer` filter, one at a time by the item's own link when the search
 * does not list it (a unit deleted or removed since). Everything is written to a local JSON
 * Lines file, one change per line, which the adapter's parse stages like any other input.
 *
 * Paging is by `oppdateringsid` (the next page starts after the highest id seen), never by page
 * number: the API caps page × size at 10 000, and `_embedded` is absent, not empty, once the
 * feed is caught up. Each feed has its own id counter.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { InputFormatError } from '../../formats/input-error.js';
import { isJsonObject, type JsonObject } from '../../formats/json-object.js';
import { orgNumberProblem } from '../org-number.js';

export type BusinessFeedName = 'enheter' | 'underenheter';

export const BUSINESS_FEEDS: readonly { feed: BusinessFeedName; embedded: string; link: string; search: string; subUnit: boolean }[] = [
  { feed: 'enheter', embedded: 'oppdaterteEnheter', link: 'enhet', search: 'enheter', subUnit: false },
  { feed: 'underenheter', embedded: 'oppdaterteUnderenheter', link: 'underenhet', search: 'underenheter', subUnit: true },
];

export const BUSINESS_SOURCE_ID = 'no-business';
/** Items per feed page; the API allows up to 10 000. */
const PAGE_SIZE = 2000;
/** Organisation numbers per search request (keeps the URL near 1 KB). */
const LOOKUP_BATCH = 100;
const LOOKUP_CONCURRENCY = 4;

/** One line of the changes file. */
export interface FeedChange {
  feed: BusinessFeedName;
  /** The feed item as the register sent it. */
  item: unknown;
  /** The unit's current record, when one was looked up and found. */
  record?: unknown;
  /** HTTP status of the unit's own link when the search did not list it (410: deleted or removed). */
  lookupStatus?: number;
}

/** Where a feed continues: after the last applied id, or (right after a full load) from a time. */
export interface FeedCursor {
  lastUpdateId: number | null;
  changesSince: Date | null;
}

export interface FeedRange {
  from: string;
  /** Highest oppdateringsid read; the cursor moves here when the run publishes. */
  lastUpdateId: number | null;
  items: number;
  pages: number;
}

export async function readFeedCursors(db: pg.Pool | pg.PoolClient): Promise<Map<BusinessFeedName, FeedCursor>> {
  const result = await db.query<{ feed: BusinessFeedName; last_update_id: string | null; changes_since: Date | null }>(
    `SELECT feed, last_update_id, changes_since FROM source_feed_cursor WHERE source_id = $1`,
    [BUSINESS_SOURCE_ID],
  );
  return new Map(result.rows.map((row) => [row.feed, { lastUpdateId: row.last_update_id === null ? null : Number(row.last_update_id), changesSince: row.changes_since }]));
}


const ACCEPT = 'application/json';

async function getJson(url: string, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { accept: ACCEPT }, signal });
  if (response.status === 404 || response.status === 410) {
    return { status: response.status, body: await response.json().catch(() => null) };
  }
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
  try {
    return { status: response.status, body: await response.json() };
  } catch (error) {
    throw new InputFormatError(`${url} did not answer JSON: ${(error as Error).message}`);
  }
}

/** `_embedded.<key>` of a HAL page; absent means none. Anything else is not the feed's shape. */
function embeddedList(body: unknown, key: string, url: string): unknown[] {
  if (!isJsonObject(body) || (body._embedded === undefined && body.page === undefined)) {
    throw new InputFormatError(`${url} did not answer an Enhetsregisteret HAL page (no _embedded or page): ${JSON.stringify(body).slice(0, 200)}`);
  }
  if (body._embedded === undefined) return [];
  const list = isJsonObject(body._embedded) ? body._embedded[key] : undefined;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new InputFormatError(`${url}: _embedded.${key} is not a list`);
  return list;
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

const NEEDS_RECORD = new Set(['Ny', 'Endring', 'Ukjent']);

/** The current records of a page's changed units: by search, then by each missing unit's own link. */
async function lookUpRecords(
  api: string,
  spec: (typeof BUSINESS_FEEDS)[number],
  items: JsonObject[],
  signal: AbortSignal,
): Promise<Map<string, { record?: unknown; lookupStatus?: number }>> {
  const found = new Map<string, { record?: unknown; lookupStatus?: number }>();
  const wanted = [...new Set(items
    .filter((item) => NEEDS_RECORD.has(item.endringstype as string) && typeof item.organisasjonsnummer === 'string' && !orgNumberProblem(item.organisasjonsnummer))
    .map((item) => item.organisasjonsnummer as string))];
  const batches: string[][] = [];
  for (let i = 0; i < wanted.length; i += LOOKUP_BATCH) batches.push(wanted.slice(i, i + LOOKUP_BATCH));
  await inParallel(batches, LOOKUP_CONCURRENCY, async (batch) => {
    const url = `${api}/${spec.search}?organisasjonsnummer=${batch.join(',')}&size=${batch.length}`;
    const { status, body } = await getJson(url, signal);
    if (status !== 200) throw new InputFormatError(`the unit search ${url} answered ${status}`);
    for (const record of embeddedList(body, spec.search, url)) {
      if (isJsonObject(record) && typeof record.organisasjonsnummer === 'string') found.set(record.organisasjonsnummer, { record });
    }
  });
  // Not in the search: deleted or removed since the change. The unit's own link says which.
  const lookedFor = new Set(wanted);
  const missing = [...new Map(items
    .filter((item) => lookedFor.has(item.organisasjonsnummer as string) && !found.has(item.organisasjonsnummer as string))
    .map((item) => [item.organisasjonsnummer as string, item])).values()];
  await inParallel(missing, LOOKUP_CONCURRENCY, async (item) => {
    const links = isJsonObject(item._links) ? item._links : {};
    const link = isJsonObject(links[spec.link]) ? (links[spec.link] as JsonObject).href : undefined;
    const url = typeof link === 'string' ? link : `${api}/${spec.search}/${item.organisasjonsnummer as string}`;
    const { status, body } = await getJson(url, signal);
    found.set(item.organisasjonsnummer as string, { record: body ?? undefined, lookupStatus: status });
  });
  return found;
}

/**
 * Reads every feed from its cursor to the end and writes the changes to `options.file`, one
 * per line. Returns the range read per feed (the cursor the publish will store) and the number
 * of changes; 0 changes leaves an empty file.
 */
export async function fetchBusinessChanges(options: {
  feedBase: string;
  cursors: Map<BusinessFeedName, FeedCursor>;
  file: string;
  signal: AbortSignal;
  onItems: (items: number) => void;
}): Promise<{ ranges: Partial<Record<BusinessFeedName, FeedRange>>; items: number }> {
  const base = options.feedBase.replace(/\/+$/, '');
  const api = base.replace(/\/oppdateringer$/, '');
  const missing = BUSINESS_FEEDS.filter(({ feed }) => !options.cursors.get(feed));
  if (missing.length) {
    throw new InputFormatError(
      `no-business has no full load of ${missing.map((m) => m.feed).join(' and ')} to continue from; load the register once first, e.g. ` +
        `nordprop backfill --source no-business --input ${api}/${missing[0].search}/lastned`,
    );
  }
  const out = createWriteStream(options.file);
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  const ranges: Partial<Record<BusinessFeedName, FeedRange>> = {};
  let total = 0;
  try {
    for (const spec of BUSINESS_FEEDS) {
      const cursor = options.cursors.get(spec.feed)!;
      let query = cursor.lastUpdateId !== null ? `oppdateringsid=${cursor.lastUpdateId + 1}` : `dato=${cursor.changesSince!.toISOString()}`;
      const range: FeedRange = { from: query, lastUpdateId: cursor.lastUpdateId, items: 0, pages: 0 };
      ranges[spec.feed] = range;
      for (;;) {
        const url = `${base}/${spec.feed}?${query}&size=${PAGE_SIZE}`;
        const { status, body } = await getJson(url, options.signal);
        // 404/410 on the feed itself is a wrong URL, not a passing outage: do not retry it.
        if (status !== 200) throw new InputFormatError(`the updates feed ${url} answered ${status}`);
        const items = embeddedList(body, spec.embedded, url);
        if (!items.length) break;
        range.pages++;
        const objects = items.filter(isJsonObject);
        const records = await lookUpRecords(api, spec, objects, options.signal);
        let highest = range.lastUpdateId ?? 0;
        for (const item of items) {
          const id = isJsonObject(item) ? item.oppdateringsid : undefined;
          if (typeof id === 'number' && Number.isSafeInteger(id) && id > highest) highest = id;
          const looked = isJsonObject(item) && typeof item.organisasjonsnummer === 'string' ? records.get(item.organisasjonsnummer) : undefined;
          const change: FeedChange = { feed: spec.feed, item, ...(looked ?? {}) };
          await write(`${JSON.stringify(change)}\n`);
        }
        range.items += items.length;
        total += items.length;
        options.onItems(total);
        // A page without a usable id cannot be continued from: stop rather than loop on it.
        if (highest === (range.lastUpdateId ?? 0)) throw new InputFormatError(`${url}: no item of the page has an oppdateringsid to continue after`);
        range.lastUpdateId = highest;
        const page = isJsonObject(body) && isJsonObject(body.page) ? body.page : {};
        if (typeof page.totalPages === 'number' && page.totalPages <= 1) break;
        query = `oppdateringsid=${highest + 1}`;
      }
    }
  } finally {
    out.end();
    await finished(out);
  }
  return { ranges, items: total };
}
