import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadSampleAddresses } from '../../bench/address-rows.js';
import { createTestDatabase } from '../support/database.js';

// address_search_document was rewritten for speed (schema/1764000500000_address-search-document-array.sql):
// the GIN index built with the old definition stays valid only if the new one returns the same
// tsvector for every address. The old definition, kept here as the reference, against the
// live one: on the sample generator's addresses, and on the spellings the folding treats
// specially (letters apart from their numbers, Swedish postal codes, words over 20 characters,
// words that start with a digit, empty and missing parts).

const OLD_DOCUMENT = `
CREATE FUNCTION pg_temp.old_address_search_document(country text, address_text text, postal_code text, postal_place text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
  plain text := address_search_join_letter(address_fold_plain(concat_ws(' ', address_text, postal_code, postal_place)));
  words text := plain || ' ' || regexp_replace(address_fold_endings(plain), '\\m([0-9]+)([[:alpha:]])\\M', '\\1\\2 \\1', 'g');
  prefixes text := '';
  w text;
BEGIN
  FOREACH w IN ARRAY string_to_array(words, ' ') LOOP
    IF length(w) >= 3 AND w !~ '^[0-9]' THEN
      FOR n IN 3..least(length(w), 20) LOOP
        prefixes := prefixes || ' ' || left(w, n) || '*';
      END LOOP;
    END IF;
  END LOOP;
  RETURN array_to_tsvector(array_remove(string_to_array(regexp_replace(words || prefixes, '([^ ]+)', country || ':\\1', 'g'), ' '), ''));
END $$`;

const SPELLINGS: Array<[string | null, string | null, string | null, string | null]> = [
  ['NO', 'Rognetunet 98 A', '5089', 'BERGEN'],
  ['NO', 'Storgata 5', '0155', 'OSLO'],
  ['NO', 'Kirkeveien 10B', null, 'Bærum'],
  ['NO', 'Sørlandsvegen 1-3', '4631', 'KRISTIANSAND S'],
  ['SE', 'Drottninggatan 71 C', '111 36', 'Stockholm'],
  ['SE', 'Götgatan 12', '11621', 'STOCKHOLM'],
  ['NO', 'Aurlandsfjordvegsnaustbakkane 123', '5745', 'AURLAND'],
  ['NO', '1 2 3', null, null],
  ['NO', '', '', ''],
  ['NO', null, null, null],
  ['NO', '  --  ', '0001', ' '],
  ['NO', 'Storgata Storgata storgt. 5', '0155', 'OSLO'],
  [null, 'Storgata 5', '0155', 'OSLO'],
  ['', 'Storgata 5', '0155', 'OSLO'],
];

let pool: pg.Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await createTestDatabase();
  drop = db.drop;
  // One connection: the reference is a pg_temp function of that session.
  pool = new pg.Pool({ connectionString: db.url, max: 1 });
  await pool.query(OLD_DOCUMENT);
  await loadSampleAddresses(pool, { scale: 0.005, seed: 'address-search-document-test' });
}, 300_000);
afterAll(async () => {
  await pool?.end();
  await drop?.();
});

describe('address_search_document', () => {
  it("returns the old definition's words for every sample address", async () => {
    const result = await pool.query<{ addresses: number; differing: number; example: string | null }>(
      `SELECT count(*)::int AS addresses,
              count(*) FILTER (WHERE d.new IS DISTINCT FROM d.old)::int AS differing,
              min(a.address_text) FILTER (WHERE d.new IS DISTINCT FROM d.old) AS example
       FROM address a,
            LATERAL (SELECT address_search_document(a.country, a.address_text, a.postal_code, a.postal_place) AS new,
                            pg_temp.old_address_search_document(a.country, a.address_text, a.postal_code, a.postal_place) AS old) d`,
    );
    expect(result.rows[0].addresses).toBeGreaterThan(10_000);
    expect(result.rows[0]).toMatchObject({ differing: 0, example: null });
  });

  it.each(SPELLINGS)('returns the old words for %s %j %j %j', async (country, text, postalCode, place) => {
    const result = await pool.query<{ new: string | null; old: string | null }>(
      `SELECT address_search_document($1, $2, $3, $4)::text AS new, pg_temp.old_address_search_document($1, $2, $3, $4)::text AS old`,
      [country, text, postalCode, place],
    );
    expect(result.rows[0].new).toBe(result.rows[0].old);
  });

  it('holds the country on every word, the prefixes of long words, and a lettered number alone', async () => {
    const result = await pool.query<{ words: string[] }>(`SELECT tsvector_to_array(address_search_document('NO', 'Rognetunet 98 A', '5089', 'BERGEN')) AS words`);
    expect(result.rows[0].words).toEqual(expect.arrayContaining(['NO:rognetunet', 'NO:rog*', 'NO:rognetunet*', 'NO:98a', 'NO:98', 'NO:5089', 'NO:bergen']));
    expect(result.rows[0].words.every((word) => word.startsWith('NO:'))).toBe(true);
  });
});
