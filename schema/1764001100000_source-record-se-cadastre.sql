-- Up Migration

-- se-cadastre keeps its published row hashes (SourceAdapter.geoPackageRecords) in a partition of
-- its own. It has written none before, so attaching takes nothing from the default partition.
CREATE TABLE source_record_se_cadastre PARTITION OF source_record FOR VALUES IN ('se-cadastre');

-- Down Migration
DROP TABLE source_record_se_cadastre;
