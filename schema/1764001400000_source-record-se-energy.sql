-- Up Migration

-- se-energy keeps its published line hashes (SourceAdapter.lineRecords: the API's JSON Lines or
-- the extract's quoted CSV) in a partition of its own. It has written none before, so attaching
-- takes nothing from the default partition.
CREATE TABLE source_record_se_energy PARTITION OF source_record FOR VALUES IN ('se-energy');

-- Down Migration
DROP TABLE source_record_se_energy;
