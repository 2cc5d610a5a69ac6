-- Up Migration

-- Comparables stored one row per property, its up to ten sales as parallel arrays in rank order
-- (most similar first), instead of one row per property and sale. At national size that is
-- 5.7 million rows instead of 57 million: the nightly merge compares and the API reads one row
-- per property (the merge of 2.5 million pair rows at a tenth of national size took 20 s even
-- when nothing had changed).
CREATE TABLE property_comparables (
  country                 text NOT NULL,
  cadastre_id             text NOT NULL,
  transaction_ids         text[] NOT NULL,
  distances_m             double precision[] NOT NULL,
  prices_per_m2           numeric(16, 2)[] NOT NULL,
  -- One currency per property: its comparables are sales of its own country.
  price_per_m2_currency   text,
  similarities            double precision[] NOT NULL,
  updated_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id),
  CHECK (cardinality(transaction_ids) = cardinality(distances_m)
     AND cardinality(transaction_ids) = cardinality(prices_per_m2)
     AND cardinality(transaction_ids) = cardinality(similarities))
);

INSERT INTO property_comparables (country, cadastre_id, transaction_ids, distances_m, prices_per_m2, price_per_m2_currency, similarities, updated_at)
SELECT country, cadastre_id,
       array_agg(transaction_id ORDER BY similarity DESC, distance_m, transaction_id),
       array_agg(distance_m ORDER BY similarity DESC, distance_m, transaction_id),
       array_agg(price_per_m2_amount ORDER BY similarity DESC, distance_m, transaction_id),
       min(price_per_m2_currency),
       array_agg(similarity ORDER BY similarity DESC, distance_m, transaction_id),
       max(updated_at)
FROM comparable_transaction
GROUP BY country, cadastre_id;

DROP TABLE comparable_transaction;

-- The pairs as before, for the API and the valuations' blend: `rank` 1 is the most similar.
CREATE VIEW comparable_transaction AS
SELECT c.country, c.cadastre_id, u.transaction_id, u.distance_m, u.price_per_m2_amount, c.price_per_m2_currency, u.similarity,
       u.rank::int AS rank, c.updated_at
FROM property_comparables c
CROSS JOIN LATERAL unnest(c.transaction_ids, c.distances_m, c.prices_per_m2, c.similarities)
  WITH ORDINALITY AS u(transaction_id, distance_m, price_per_m2_amount, similarity, rank);

-- Down Migration
DROP VIEW comparable_transaction;
CREATE TABLE comparable_transaction (
  country                 text NOT NULL,
  cadastre_id             text NOT NULL,
  transaction_id          text NOT NULL,
  distance_m              double precision NOT NULL,
  price_per_m2_amount     numeric(16, 2),
  price_per_m2_currency   text,
  similarity              double precision NOT NULL,
  updated_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id, transaction_id)
);
INSERT INTO comparable_transaction (country, cadastre_id, transaction_id, distance_m, price_per_m2_amount, price_per_m2_currency, similarity, updated_at)
SELECT c.country, c.cadastre_id, u.transaction_id, u.distance_m, u.price, c.price_per_m2_currency, u.similarity, c.updated_at
FROM property_comparables c
CROSS JOIN LATERAL unnest(c.transaction_ids, c.distances_m, c.prices_per_m2, c.similarities) AS u(transaction_id, distance_m, price, similarity);
DROP TABLE property_comparables;
