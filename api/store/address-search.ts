import type pg from 'pg';
import { visibleTo } from './visibility.js';

/** At most this many matches; partial input ("Storgata") returns several, best first. */
export const ADDRESS_MATCH_LIMIT = 20;
// Words shorter than a trigram cannot use the trigram index; they filter the candidates instead.
const INDEXABLE = 3;
const MAX_WORDS = 8;

/**
 * Address text → matching addresses, best first. Query and stored text are folded alike by the
 * SQL functions of the API migration (case, Nordic letters, gt./vn./v. and the street endings
 * gata/gate, veien/vegen/vägen), so "STORGT. 5" finds "Storgata 5" and "Storgata" finds
 * "Storgata 5, 5A, 7 …". Every word of the query must occur in the address's search key (text,
 * postal code and place); exact matches rank first, then prefix matches, then trigram similarity.
 */
export async function searchAddresses(db: pg.Pool, country: string, text: string, sandbox: boolean): Promise<unknown[]> {
  const folded = (await db.query(`SELECT address_fold($1) AS folded`, [text])).rows[0].folded as string | null;
  const words = [...new Set((folded ?? '').split(' ').filter(Boolean))].slice(0, MAX_WORDS);
  if (!words.length) return [];
  const params: unknown[] = [country, folded, sandbox];
  const key = `address_search_key(a.address_text, a.postal_code, a.postal_place)`;
  const conditions = words.map((word) => {
    params.push(word);
    // Long words: LIKE on the trigram index. Short ones (a house number): a word start in the key.
    return word.length >= INDEXABLE ? `${key} LIKE '%' || $${params.length} || '%'` : `strpos(' ' || ${key}, ' ' || $${params.length}) > 0`;
  });
  const canonical = `address_fold(concat_ws(' ', a.address_text, a.postal_code, a.postal_place))`;
  const result = await db.query(
    `SELECT json_strip_nulls(api_address(a)) AS address
     FROM address a
     WHERE a.country = $1 AND ${conditions.join(' AND ')} AND ${visibleTo('$3', 'a.country', 'a.cadastre_id')}
     ORDER BY address_fold(a.address_text) = $2 DESC, ${canonical} LIKE $2 || '%' DESC, similarity(${canonical}, $2) DESC,
              a.street_name, a.house_number, a.house_letter NULLS FIRST, a.address_id
     LIMIT ${ADDRESS_MATCH_LIMIT}`,
    params,
  );
  return result.rows.map((row) => row.address);
}
