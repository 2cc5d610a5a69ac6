-- Up Migration

-- se-business keeps its published line hashes (SourceAdapter.bundleRecords: the lines of
-- Bolagsverket's and SCB's files, grouped by organisation number) in a partition of its own. It
-- has written none before, so attaching takes nothing from the default partition.
CREATE TABLE source_record_se_business PARTITION OF source_record FOR VALUES IN ('se-business');

-- Down Migration
DROP TABLE source_record_se_business;
