import { createHash } from 'node:crypto';
import { sign, verifySignature } from '../lib/secrets/signature.js';
import { badRequest } from './problem.js';

/**
 * Opaque page tokens for the keyset-paged lists: the last row's sort key, bound to the query it
 * came from (operation, path parameters, client) and signed, so a token cannot be edited or
 * replayed against another query. The encoding may change between releases, as the spec allows.
 */
export type PageKey = (string | number)[];

export interface PageQuery {
  operation: string;
  params: Record<string, string>;
  clientId: string;
}

const bindingOf = (query: PageQuery) =>
  createHash('sha256').update(JSON.stringify([query.operation, query.params, query.clientId])).digest('base64url').slice(0, 16);

export function encodePageToken(key: Buffer, query: PageQuery, after: PageKey): string {
  const payload = Buffer.from(JSON.stringify({ q: bindingOf(query), k: after })).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

export function decodePageToken(key: Buffer, query: PageQuery, token: string | undefined): PageKey | undefined {
  if (token === undefined) return undefined;
  const invalid = () => badRequest('pageToken is not a token this list issued for this query', 'INVALID_PAGE_TOKEN');
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || !verifySignature(key, payload, signature)) throw invalid();
  let decoded: { q?: unknown; k?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (decoded.q !== bindingOf(query) || !Array.isArray(decoded.k)) throw invalid();
  return decoded.k as PageKey;
}

/**
 * Runs a keyset query for one page: `fetch(after, limit + 1)` returns rows in order; the extra row
 * only tells that another page exists. The token names the last row served.
 */
export async function page<Row, Item>(
  key: Buffer,
  query: PageQuery,
  request: { pageSize: number; pageToken?: string },
  fetch: (after: PageKey | undefined, limit: number) => Promise<Row[]>,
  keyOf: (row: Row) => PageKey,
  toItem: (row: Row) => Item,
): Promise<{ items: Item[]; nextPageToken?: string }> {
  const after = decodePageToken(key, query, request.pageToken);
  const rows = await fetch(after, request.pageSize + 1);
  const more = rows.length > request.pageSize;
  const served = more ? rows.slice(0, request.pageSize) : rows;
  return {
    items: served.map(toItem),
    ...(more ? { nextPageToken: encodePageToken(key, query, keyOf(served[served.length - 1])) } : {}),
  };
}
