import type pg from 'pg';
import { ApiProblem } from '../problem.js';
import { visibleTo } from './visibility.js';

/** At most this many matches; partial input ("Storgata") returns several, best first. */
export const ADDRESS_MATCH_LIMIT = 20;
/**
 * At most this many addresses are read by each of the two word searches: a vague query ("Oslo 1")
 * holds the words of thousands of addresses, and the first ones found stand for them.
 */
export const ADDRESS_CANDIDATE_LIMIT = 200;
/** A search still running after this long is stopped and answered 503 (none comes near it: the last guard). */
export const ADDRESS_SEARCH_TIMEOUT_MS = 1000;

const QUERY_CANCELED = '57014';

/**
 * Address text → matching addresses, best first, through the two indexes of
 * schema/1763901000000_address-search-tokens.sql. Query and addresses are folded alike (case,
 * Nordic letters, gt./vn./v. and the street endings gata/gate, veien/vegen/vägen, a house letter
 * written apart from its number: "STORGT. 5 b" is "Storgata 5B"). In this order:
 *
 * 0. Prefix: the addresses whose text, postal code and place begin with the query, in that order
 *    (house numbers in number order: Storgata 2 before 10, 5 before 5A), from the btree.
 * 1. When fewer than 20: the addresses that hold every word of the query whole, in any order
 *    ("5 Storgata Oslo", "0155"), from the GIN index.
 * 2. When still fewer: the same with each word of three characters or more (not starting with a
 *    digit) as the start of a word ("Storga 5" finds Storgata 5).
 * 1 and 2 in street, number, letter and postal code order. A query whose words all have fewer
 * than three characters ("1 2 3", "a") is answered by 0 alone: each such word is in a large
 * share of the country's addresses, so a search by word would read them all.
 *
 * Each query reads at most 20 address rows through the btree and ADDRESS_CANDIDATE_LIMIT through
 * each GIN search, whatever the size of the table; ADDRESS_SEARCH_TIMEOUT_MS is only the last
 * guard (503 Problem Details, not a 500).
 */
export async function searchAddresses(db: pg.Pool, country: string, text: string, sandbox: boolean, options: { timeoutMs?: number } = {}): Promise<unknown[]> {
  const timeoutMs = Math.max(1, Math.round(options.timeoutMs ?? ADDRESS_SEARCH_TIMEOUT_MS));
  const client = await db.connect();
  let broken: Error | undefined;
  try {
    // The timeout of this search alone: SET LOCAL ends with the transaction.
    await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${timeoutMs}`);
    const result = await client.query<{ address: unknown }>(sandbox ? SANDBOX_SQL : SEARCH_SQL, [country, text]);
    await client.query('COMMIT');
    return result.rows.map((row) => row.address);
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    if ((error as { code?: string }).code === QUERY_CANCELED) {
      throw new ApiProblem(503, 'SERVICE_UNAVAILABLE', `the address search did not finish within ${timeoutMs} ms and was stopped; try again, or give more of the address`, {
        'Retry-After': '1',
      });
    }
    throw error;
  } finally {
    // A connection that cannot even roll back is not given to the next request.
    client.release(broken);
  }
}

const sortKey = `address_search_sort_key(a.address_text, a.postal_code, a.postal_place)`;
const documentOf = (row: string) => `address_search_document(${row}.country, ${row}.address_text, ${row}.postal_code, ${row}.postal_place)`;
/** Where a word read (tier 1 and 2) stands among the others: street, number, letter, postal code. */
const readingOrder = (row: string) => `${row}.street_name, ${row}.house_number, ${row}.house_letter NULLS FIRST, ${row}.postal_code, ${row}.address_id`;

/**
 * $1 country, $2 query text. Three index reads, each stopped early, best first:
 * 0. `prefix`: the btree range of sort keys that begin with the query, in key order, at most 20.
 * 1. `whole`: the addresses that hold every query word whole (GIN), when the prefix found fewer
 *    than 20; at most ADDRESS_CANDIDATE_LIMIT read.
 * 2. `partial`: the same with the longer words as prefixes, when 0 and 1 together found fewer
 *    than 20; at most ADDRESS_CANDIDATE_LIMIT read.
 * `whole` and `partial` are MATERIALIZED CTEs, so each is planned for all of its rows (the GIN
 * index, not a scan of the table in the hope of meeting enough matches early) yet read only as
 * far as its limit. No function of an address is computed but in the indexes and the JSON of
 * the 20 returned.
 */
export const SEARCH_SQL = `
WITH prefix AS (
  SELECT s.a, row_number() OVER () AS position
  FROM (
    SELECT a FROM address a
    WHERE a.country = $1 AND address_search_query_key($2) <> ''
      AND ${sortKey} COLLATE "C" >= address_search_query_key($2)
      AND ${sortKey} COLLATE "C" < address_search_query_key($2) || chr(1114111)
    ORDER BY ${sortKey} COLLATE "C", a.address_id
    LIMIT ${ADDRESS_MATCH_LIMIT}
  ) s
),
whole AS MATERIALIZED (
  SELECT a FROM address a WHERE ${documentOf('a')} @@ address_search_query($1, $2, false)
),
whole_read AS (
  SELECT w.a FROM whole w
  WHERE (SELECT count(*) FROM prefix) < ${ADDRESS_MATCH_LIMIT}
  LIMIT ${ADDRESS_CANDIDATE_LIMIT}
),
partial AS MATERIALIZED (
  SELECT a FROM address a WHERE ${documentOf('a')} @@ address_search_query($1, $2, true)
),
partial_read AS (
  SELECT p.a FROM partial p
  WHERE (SELECT count(*) FROM (SELECT (f.a).address_id FROM prefix f UNION SELECT (w.a).address_id FROM whole_read w) found) < ${ADDRESS_MATCH_LIMIT}
  LIMIT ${ADDRESS_CANDIDATE_LIMIT}
),
found AS (
  SELECT DISTINCT ON ((f.a).address_id) f.a, f.tier, f.position
  FROM (
    SELECT p.a, 0 AS tier, p.position FROM prefix p
    UNION ALL SELECT w.a, 1, 0 FROM whole_read w
    UNION ALL SELECT p.a, 2, 0 FROM partial_read p
  ) f
  ORDER BY (f.a).address_id, f.tier
)
SELECT json_strip_nulls(api_address(f.a)) AS address
FROM found f
ORDER BY f.tier, f.position, ${readingOrder('(f.a)')}
LIMIT ${ADDRESS_MATCH_LIMIT}`;

/**
 * A sandbox client sees only the demo properties (api_demo_property, a few dozen) and their
 * sections (api/store/visibility.ts): their addresses are read by property and section through
 * address_cadastre_idx and matched one by one, in the same order as above, then held to the
 * sandbox rule itself.
 */
export const SANDBOX_SQL = `
WITH demo_unit AS MATERIALIZED (
  SELECT d.country, d.cadastre_id FROM api_demo_property d WHERE d.country = $1
  UNION
  SELECT s.country, s.cadastre_id FROM api_demo_property d JOIN section s ON s.country = d.country AND s.property_cadastre_id = d.cadastre_id
  WHERE d.country = $1
),
demo AS MATERIALIZED (
  SELECT x.*
  FROM demo_unit u
  -- One index lookup per unit (OFFSET 0 keeps the planner from merging it into a join that
  -- reads the country's addresses in cadastre order).
  CROSS JOIN LATERAL (
    SELECT a, ${sortKey} AS sort_key, ${documentOf('a')} AS document
    FROM address a WHERE a.country = u.country AND a.cadastre_id = u.cadastre_id OFFSET 0
  ) x
),
found AS (
  SELECT m.a, m.sort_key,
    CASE WHEN starts_with(m.sort_key, address_search_query_key($2)) THEN 0
         WHEN m.document @@ address_search_query($1, $2, false) THEN 1
         WHEN m.document @@ address_search_query($1, $2, true) THEN 2 END AS tier
  FROM demo m
  WHERE address_search_query_key($2) <> ''
)
SELECT json_strip_nulls(api_address(f.a)) AS address
FROM found f
WHERE f.tier IS NOT NULL AND ${visibleTo('true', '(f.a).country', '(f.a).cadastre_id')}
ORDER BY f.tier, CASE WHEN f.tier = 0 THEN f.sort_key END COLLATE "C", ${readingOrder('(f.a)')}
LIMIT ${ADDRESS_MATCH_LIMIT}`;
