-- Up Migration

-- The GML sources whose records are features (SourceAdapter.featureRecords) keep their
-- published feature hashes in source_record too, each in a partition of its own. Neither has
-- written any before, so attaching takes nothing from the default partition.
CREATE TABLE source_record_no_cadastre PARTITION OF source_record FOR VALUES IN ('no-cadastre');
CREATE TABLE source_record_no_building PARTITION OF source_record FOR VALUES IN ('no-building');

-- Down Migration
DROP TABLE source_record_no_building;
DROP TABLE source_record_no_cadastre;
