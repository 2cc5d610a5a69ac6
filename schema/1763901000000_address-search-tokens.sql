-- Up Migration

-- Address search through indexes only, at a bounded cost for every query
-- (api/store/address-search.ts). The trigram index it replaces served only words of three
-- letters or more: a query of shorter words (`1 2 3`) was a condition on every address of the
-- country, 535 ms on the 17,000-address demo and over a minute at national size. Now two:
--
-- - address_search_prefix_idx, a btree on the address's text, postal code and place folded as a
--   query is (address_search_sort_key): a query that is the start of an address ("Storgata 5",
--   "Rognetunet 98 A", "Storgt. 5, 0155 Oslo", "1 2 3") is a range of it, read in key order and
--   stopped at the page size. Numbers carry their count of digits in the key, so Storgata 2
--   comes before 10, and the postal code 0150 is not the number 150.
-- - address_search_document_idx, a GIN index on the address's words (address_search_document, a
--   tsvector of whole words, each with its country: `NO:storgata`, and each word of three
--   characters or more that does not start with a digit also as its prefixes of three characters
--   and more, marked `*`: `NO:sto*`, `NO:stor*`, …, `NO:storgata*`). A query of words in any
--   order ("5 Storgata Oslo", "0155", "Storga 5") is a tsquery of them (address_search_query):
--   every word whole (`NO:storgata & NO:5`), or, when that finds too few, each long word as a
--   prefix (`NO:storga* & NO:5`). Prefixes are words of the index rather than tsquery prefix
--   matches (`storga:*`): GIN resolves a prefix match by reading the lists of every word that
--   starts with it into one bitmap before it looks at the other words of the query (12 to 40 ms
--   for `bjork`, `lind` or `kirke` and a house number at national size), and reads one list of
--   its own for a prefix word. For the same reason the country is in each word, not a word of
--   its own nor a column beside the document: GIN reads the whole list of every word of a query,
--   and a country's is every address of it (14 ms beside a rare word at national size, where the
--   largest list of a real word, house number 1 with 83,000 addresses, took 1.6 ms; a country
--   column through btree_gin took 40 ms on 52,000 addresses).
--
-- Both spellings of a word are indexed (address_fold_plain and address_fold: storgata and
-- storgt), a house letter written apart from its number is joined to it ("98 A" → 98a) in the
-- addresses and in the query alike, and a number with its letter is also the number alone
-- (Storgata 98 finds 98A).
--
-- The functions are plpgsql so that the planner takes them as the calls they are (COST): a SQL
-- function of one expression is inlined into regexp_replace calls the planner prices at next to
-- nothing, so that reading every address and folding its text looked as cheap as the index.
-- Folding an address costs about as much as reading a page of them.

-- address_fold's street endings on an already folded text (address_fold is now written with it;
-- same result as before).
CREATE FUNCTION address_fold_endings(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(regexp_replace(t, '(gata|gate)\M', 'gt', 'g'), '(veien|vegen|vagen|vei|veg)\M', 'vn', 'g');

CREATE OR REPLACE FUNCTION address_fold(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN address_fold_endings(address_fold_plain(t));

-- "98 a" → "98a": a house letter written apart from its number, as the register writes it.
CREATE FUNCTION address_search_join_letter(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(t, '\m([0-9]+) ([[:alpha:]])\M', '\1\2', 'g');

-- Each number of one to six digits prefixed by its count of digits, so that text order is number
-- order and a postal code's leading zero keeps it apart from a house number: 5 → 15, 10 → 210,
-- 10a → 210a, 150 → 3150, 0150 → 40150. Longest first: a number once prefixed has one digit more
-- than the numbers of its own length, and those of that length are done.
CREATE FUNCTION address_search_number_order(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(t,
  '\m([0-9]{6}[[:alpha:]]?)\M', '6\1', 'g'),
  '\m([0-9]{5}[[:alpha:]]?)\M', '5\1', 'g'),
  '\m([0-9]{4}[[:alpha:]]?)\M', '4\1', 'g'),
  '\m([0-9]{3}[[:alpha:]]?)\M', '3\1', 'g'),
  '\m([0-9]{2}[[:alpha:]]?)\M', '2\1', 'g'),
  '\m([0-9][[:alpha:]]?)\M', '1\1', 'g');

-- A query as the start of a sort key: folded, letter joined, numbers in number order.
CREATE FUNCTION address_search_query_key(q text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000
AS $$ BEGIN RETURN address_search_number_order(address_search_join_letter(address_fold(q))); END $$;

-- The address (text, postal code, place) as a query for it would be written.
CREATE FUNCTION address_search_sort_key(address_text text, postal_code text, postal_place text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000
AS $$ BEGIN RETURN address_search_query_key(concat_ws(' ', address_text, postal_code, postal_place)); END $$;

-- The address's words: folded plain and with the street endings, letter joined, a number with
-- its letter also alone, and the prefixes (of up to 20 characters) of the words that have them;
-- each with the country code (`NO:`).
CREATE FUNCTION address_search_document(country text, address_text text, postal_code text, postal_place text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000
AS $$
DECLARE
  plain text := address_search_join_letter(address_fold_plain(concat_ws(' ', address_text, postal_code, postal_place)));
  words text := plain || ' ' || regexp_replace(address_fold_endings(plain), '\m([0-9]+)([[:alpha:]])\M', '\1\2 \1', 'g');
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
  RETURN array_to_tsvector(array_remove(string_to_array(regexp_replace(words || prefixes, '([^ ]+)', country || ':\1', 'g'), ' '), ''));
END $$;

-- The query's words, folded and letter joined as the addresses' are (empty: nothing to search).
CREATE FUNCTION address_search_query_words(q text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000
AS $$ BEGIN RETURN array_remove(string_to_array(address_search_join_letter(address_fold(q)), ' '), ''); END $$;

-- The query as a tsquery on address_search_document: every word with the country; with
-- `prefixes`, a word of three characters or more that does not start with a digit as a prefix
-- (`NO:storga*`, a tsquery prefix match `NO:storga:*` past the 20 characters the document holds),
-- without it every word whole. NULL when no word has three characters or more: a query of short
-- words only is not searched by word (each such word is in a large share of the country's
-- addresses), only as the start of an address. With `prefixes` also NULL when no word can be a
-- prefix: the query would be the one without.
CREATE FUNCTION address_search_query(country text, q text, prefixes boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000
AS $$
DECLARE
  words text[] := address_search_query_words(q);
BEGIN
  IF NOT EXISTS (SELECT 1 FROM unnest(words) w WHERE length(w) >= 3)
     OR prefixes AND NOT EXISTS (SELECT 1 FROM unnest(words) w WHERE length(w) >= 3 AND w !~ '^[0-9]') THEN
    RETURN NULL;
  END IF;
  -- Folded words hold letters and digits only: nothing to quote.
  RETURN (SELECT string_agg('''' || country || ':' || w || CASE WHEN NOT prefixes OR length(w) < 3 OR w ~ '^[0-9]' THEN ''''
                                                              WHEN length(w) <= 20 THEN '*'''
                                                              ELSE ''':*' END, ' & ')
          FROM unnest(words) w)::tsquery;
END $$;

DROP INDEX address_search_idx;
CREATE INDEX address_search_prefix_idx ON address (country, (address_search_sort_key(address_text, postal_code, postal_place)) COLLATE "C", address_id);
CREATE INDEX address_search_document_idx ON address USING gin (address_search_document(country, address_text, postal_code, postal_place));

-- Down Migration
DROP INDEX address_search_document_idx;
DROP INDEX address_search_prefix_idx;
CREATE INDEX address_search_idx ON address USING gin (address_search_key(address_text, postal_code, postal_place) gin_trgm_ops);
DROP FUNCTION address_search_query(text, text, boolean);
DROP FUNCTION address_search_query_words(text);
DROP FUNCTION address_search_document(text, text, text, text);
DROP FUNCTION address_search_sort_key(text, text, text);
DROP FUNCTION address_search_query_key(text);
DROP FUNCTION address_search_number_order(text);
DROP FUNCTION address_search_join_letter(text);
CREATE OR REPLACE FUNCTION address_fold(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(regexp_replace(address_fold_plain(t), '(gata|gate)\M', 'gt', 'g'), '(veien|vegen|vagen|vei|veg)\M', 'vn', 'g');
DROP FUNCTION address_fold_endings(text);
