-- Up Migration

-- What Matrikkelen Bygning (no-building) and the matrikkel-detail exchange feed
-- (no-matrikkel-detail) carry beyond the shared live schema.

-- The Matrikkel's internal bygning id, the heritage flags the building points carry, and the
-- register's own update time.
ALTER TABLE building
  ADD COLUMN register_id            text,
  ADD COLUMN has_cultural_heritage  boolean,
  ADD COLUMN is_sefrak_registered   boolean,
  ADD COLUMN source_updated_at      timestamp;

-- A building point's bruksenheter as the building file links them: each to its address and
-- its matrikkelenhet (the register's internal id; cadastre_id when the file names the unit).
CREATE TABLE building_unit_link (
  country            text NOT NULL,
  building_id        text NOT NULL,
  bruksenhet_id      text NOT NULL,
  address_id         text,
  matrikkelenhet_id  text,
  cadastre_id        text,
  PRIMARY KEY (country, building_id, bruksenhet_id)
);
CREATE INDEX building_unit_link_cadastre_idx ON building_unit_link (country, cadastre_id);

-- The detail feed publishes per municipality like every other source: building details carry
-- it as a column (their cadastre id may be unknown); sections and units derive it from their
-- cadastre id, so other writers of these tables need not fill it.
ALTER TABLE building_detail ADD COLUMN municipality_code text;
ALTER TABLE section ADD COLUMN municipality_code text GENERATED ALWAYS AS (cadastre_municipality(cadastre_id)) STORED;
ALTER TABLE unit ADD COLUMN municipality_code text GENERATED ALWAYS AS (cadastre_municipality(cadastre_id)) STORED;
CREATE INDEX unit_building_idx ON unit (country, building_number);

-- Down Migration
DROP INDEX unit_building_idx;
ALTER TABLE unit DROP COLUMN municipality_code;
ALTER TABLE section DROP COLUMN municipality_code;
ALTER TABLE building_detail DROP COLUMN municipality_code;
DROP TABLE building_unit_link;
ALTER TABLE building
  DROP COLUMN register_id,
  DROP COLUMN has_cultural_heritage,
  DROP COLUMN is_sefrak_registered,
  DROP COLUMN source_updated_at;
