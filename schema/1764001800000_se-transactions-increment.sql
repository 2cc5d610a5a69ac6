-- Up Migration

-- se-transactions keeps its published line hashes (SourceAdapter.bundleRecords: one sale per
-- line of the extract's JSON Lines, each hash covering the code tables before it) in a
-- partition of its own. It has written none before, so attaching takes nothing from the
-- default partition, and its first run after this migration stages its file whole.
CREATE TABLE source_record_se_transactions PARTITION OF source_record FOR VALUES IN ('se-transactions');

-- The name each Swedish sale gives each person party (the extract spells a person per sale).
-- A person's name is the spelling of their latest sale; a night that stages a few sales reads
-- the spellings of the others here instead of from the whole file. Pipeline-only: the API
-- never reads it, and a person's name is served from `person` to owners.read alone.
-- One row per (sale, person), as the publish writes them (DISTINCT); no unique index, so that a
-- first load builds both indexes after its insert instead of maintaining them row by row (2.3 s
-- of a 14 s first load at 0.05 x national with a primary key).
CREATE TABLE party_name (
  country          text NOT NULL,
  transaction_id   text NOT NULL,
  person_id        text NOT NULL,
  name             text NOT NULL
);
CREATE INDEX party_name_transaction_idx ON party_name (country, transaction_id);
CREATE INDEX party_name_person_idx ON party_name (country, person_id);

-- Down Migration
DROP TABLE party_name;
DROP TABLE source_record_se_transactions;
