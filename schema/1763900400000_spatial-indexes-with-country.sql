-- Up Migration

-- Every spatial lookup of a country-keyed table asks for one country and one place
-- (`country = 'NO' AND ST_Covers(geom, point)`). With the geometry alone in the GiST index the
-- planner ANDs it with a bitmap of the primary key's `country` prefix, which reads every entry
-- of that country: a coordinate lookup on a tenth of Norway took 87 ms, 85 of them in the
-- primary key, and every Swedish address or building linked to its parcel paid the same.
-- With the country beside the geometry in one GiST index (btree_gist gives text a GiST
-- operator class) both conditions are index conditions of one scan: 1.5 ms.
CREATE EXTENSION IF NOT EXISTS btree_gist;

DROP INDEX parcel_geom_idx;
CREATE INDEX parcel_geom_idx ON parcel USING gist (geom, country);
DROP INDEX building_location_idx;
CREATE INDEX building_location_idx ON building USING gist (location, country);
DROP INDEX zoning_plan_geom_idx;
CREATE INDEX zoning_plan_geom_idx ON zoning_plan USING gist (geom, country);
DROP INDEX municipality_geom_idx;
CREATE INDEX municipality_geom_idx ON municipality USING gist (geom, country);
DROP INDEX area_geom_idx;
CREATE INDEX area_geom_idx ON area USING gist (geom, country);

-- Down Migration
DROP INDEX area_geom_idx;
CREATE INDEX area_geom_idx ON area USING gist (geom);
DROP INDEX municipality_geom_idx;
CREATE INDEX municipality_geom_idx ON municipality USING gist (geom);
DROP INDEX zoning_plan_geom_idx;
CREATE INDEX zoning_plan_geom_idx ON zoning_plan USING gist (geom);
DROP INDEX building_location_idx;
CREATE INDEX building_location_idx ON building USING gist (location);
DROP INDEX parcel_geom_idx;
CREATE INDEX parcel_geom_idx ON parcel USING gist (geom);
-- btree_gist stays: another object may use it by now.
