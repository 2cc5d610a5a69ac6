-- Up Migration

-- no-energy keeps its published line hashes (SourceAdapter.lineRecords, a quoted CSV) in a
-- partition of its own. It has written none before, so attaching takes nothing from the
-- default partition.
CREATE TABLE source_record_no_energy PARTITION OF source_record FOR VALUES IN ('no-energy');

-- Down Migration
DROP TABLE source_record_no_energy;
