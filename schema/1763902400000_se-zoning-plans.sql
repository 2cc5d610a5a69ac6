-- Up Migration

-- Swedish detaljplaner (source se-zoning) share zoning_plan with the Norwegian plans (its
-- `country` column keeps them apart). A Swedish plan may cap the built-over area (byggnadsarea)
-- in m² per property rather than in percent of it, so that rule gets a column of its own.
ALTER TABLE zoning_plan ADD COLUMN bya_m2 double precision;

-- Utilization of a Swedish property rests on its buildings' footprints (Lantmäteriet's byggnad
-- carries no floor area): the built-over area is kept beside the figures, for audit.
ALTER TABLE utilization ADD COLUMN built_over_m2 double precision;

-- Down Migration
ALTER TABLE utilization DROP COLUMN built_over_m2;
ALTER TABLE zoning_plan DROP COLUMN bya_m2;
