-- Up Migration

-- The records a line-record source (SourceAdapter.lineRecords) last published, one row per live
-- key: the hash of the file line it came from. A night's stage hashes every line of the file
-- and parses only the lines whose hash is not here; the keys whose hash is gone are the night's
-- deletions (activities/line-records.ts). Written in the publish transaction, so it always
-- describes what live holds.
--
-- One partition per source and no index: every statement on it is a hash join or anti-join over
-- one source's rows. With a primary key on (source_id, record_key) and an index on the hash,
-- writing the 387,175 records of a first no-matrikkel-detail load took 4.5 s (random inserts
-- into two B-trees), about as long as that source's whole publish.
CREATE TABLE source_record (
  source_id text NOT NULL,
  record_key text NOT NULL,
  record_hash uuid NOT NULL
) PARTITION BY LIST (source_id);
CREATE TABLE source_record_no_address PARTITION OF source_record FOR VALUES IN ('no-address');
CREATE TABLE source_record_no_permits PARTITION OF source_record FOR VALUES IN ('no-permits');
CREATE TABLE source_record_no_certification PARTITION OF source_record FOR VALUES IN ('no-certification');
CREATE TABLE source_record_no_matrikkel_detail PARTITION OF source_record FOR VALUES IN ('no-matrikkel-detail');
CREATE TABLE source_record_no_land_registry PARTITION OF source_record FOR VALUES IN ('no-land-registry');
-- A new line-record source works from here too; give it its own partition in its migration.
CREATE TABLE source_record_other PARTITION OF source_record DEFAULT;

-- Of the rows read, those a line-record source's run found unchanged since its last publish
-- (read and hashed, not parsed or staged); NULL for the other sources.
ALTER TABLE source_run ADD COLUMN rows_unchanged bigint;

-- Down Migration
ALTER TABLE source_run DROP COLUMN rows_unchanged;
DROP TABLE source_record;
