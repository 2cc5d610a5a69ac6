-- Up Migration

-- se-building keeps its published row hashes (SourceAdapter.geoPackageRecords, one per part,
-- keyed by the part's building) in a partition of its own. It has written none before, so
-- attaching takes nothing from the default partition.
CREATE TABLE source_record_se_building PARTITION OF source_record FOR VALUES IN ('se-building');

-- Down Migration
DROP TABLE source_record_se_building;
