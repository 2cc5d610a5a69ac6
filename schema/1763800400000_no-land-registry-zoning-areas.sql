-- Up Migration

-- Land register, zoning plans and areas (Norway): what their publishes need beyond the shared
-- live schema (1763800000000).

-- Rights and transfers are replaced per municipality when a municipality's extract is loaded;
-- the municipality is the cadastre id's first segment, kept as a generated column so the
-- shared merge can scope by it like every other live table.
ALTER TABLE owner
  ADD COLUMN municipality_code text GENERATED ALWAYS AS (cadastre_municipality(cadastre_id)) STORED;
CREATE INDEX owner_municipality_idx ON owner (country, municipality_code);
CREATE INDEX owner_person_idx ON owner (country, person_id) WHERE person_id IS NOT NULL;

ALTER TABLE property_transaction
  ADD COLUMN municipality_code text GENERATED ALWAYS AS (cadastre_municipality(cadastre_id)) STORED,
  -- The grunnbok's document number (år/dokumentnummer-rettsstiftelse/embete) and its
  -- omsetningstype as the register names it (kind is the API's normalized value).
  ADD COLUMN document_number text,
  ADD COLUMN register_kind text;
CREATE INDEX property_transaction_municipality_idx ON property_transaction (country, municipality_code);
CREATE INDEX transaction_party_person_idx ON transaction_party (country, person_id) WHERE person_id IS NOT NULL;
CREATE INDEX transaction_party_org_idx ON transaction_party (org_scheme, org_id) WHERE org_id IS NOT NULL;

-- Areas measured once at publish (in the source's UTM zone, or on the ellipsoid).
ALTER TABLE municipality ADD COLUMN area_m2 double precision;
ALTER TABLE area ADD COLUMN area_m2 double precision;
CREATE INDEX area_municipality_idx ON area (country, municipality_code);
ALTER TABLE zoning_plan
  ADD COLUMN area_m2 double precision,
  -- The register's planstatus code (SOSI Planstatus), beside the normalized status.
  ADD COLUMN status_code integer;

-- Down Migration
ALTER TABLE zoning_plan DROP COLUMN status_code, DROP COLUMN area_m2;
DROP INDEX area_municipality_idx;
ALTER TABLE area DROP COLUMN area_m2;
ALTER TABLE municipality DROP COLUMN area_m2;
DROP INDEX transaction_party_org_idx;
DROP INDEX transaction_party_person_idx;
DROP INDEX property_transaction_municipality_idx;
ALTER TABLE property_transaction DROP COLUMN register_kind, DROP COLUMN document_number, DROP COLUMN municipality_code;
DROP INDEX owner_person_idx;
DROP INDEX owner_municipality_idx;
ALTER TABLE owner DROP COLUMN municipality_code;
