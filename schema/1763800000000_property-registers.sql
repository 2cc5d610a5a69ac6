-- Up Migration

-- The live tables every register adapter of both countries publishes into, shaped after the
-- resources of the API (docs/design.md; the contract is /openapi.yaml). One table per resource, a `country` column on
-- each, so Norway and Sweden are served by the same queries. Each adapter owns the rows of
-- its country in the tables it names (its publish scope), and every published row carries
-- `row_hash` / `published_run_id` / `updated_at` like the foundation's tables.
-- An adapter that needs more columns adds them in a migration of its own.

-- Properties as a register states them, beside what the parcels imply: the Swedish register
-- unit's UUID and designation, plot counts, taxation value, established date.
CREATE TABLE property_register (
  country              text NOT NULL,
  cadastre_id          text NOT NULL,
  -- Sweden: registerenhetsreferens (the stable internal key); Norway: matrikkelenhet id when known.
  register_ref         text,
  designation          text,
  municipality_code    text NOT NULL,
  property_type        text NOT NULL,
  area_m2              double precision,
  plot_count           integer,
  established_date     date,
  taxation_value       numeric(16, 2),
  taxation_currency    text,
  row_hash             uuid NOT NULL,
  published_run_id     text NOT NULL,
  updated_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id)
);
CREATE UNIQUE INDEX property_register_ref_idx ON property_register (country, register_ref) WHERE register_ref IS NOT NULL;

-- Buildings (Norway: bygningspunkt; Sweden: byggnad footprints dissolved per objektidentitet).
CREATE TABLE building (
  country               text NOT NULL,
  -- Norway: bygningsnummer (also the public building number); Sweden: objektidentitet.
  building_id           text NOT NULL,
  building_number       text NOT NULL,
  cadastre_id           text,
  municipality_code     text NOT NULL,
  building_type_code    text,
  building_type_name    text,
  status                text,
  status_code           text,
  is_main_building      boolean,
  house_number          text,
  -- Point for a bygningspunkt, MultiPolygon for a footprint; `location` is always a point.
  geom                  geometry(Geometry, 4326) NOT NULL,
  location              geometry(Point, 4326) NOT NULL,
  footprint_m2          double precision,
  source_srid           integer NOT NULL,
  row_hash              uuid NOT NULL,
  published_run_id      text NOT NULL,
  updated_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, building_id)
);
CREATE INDEX building_cadastre_idx ON building (country, cadastre_id);
CREATE INDEX building_number_idx ON building (country, building_number);
CREATE INDEX building_location_idx ON building USING gist (location);

-- A building's status changes, oldest first.
CREATE TABLE building_status_history (
  country          text NOT NULL,
  building_id      text NOT NULL,
  seq              integer NOT NULL,
  status           text NOT NULL,
  status_code      text,
  changed_date     date,
  registered_date  date,
  reason           text,
  PRIMARY KEY (country, building_id, seq)
);

-- Building details a register states beyond the point or footprint (Norway: matrikkel details).
CREATE TABLE building_detail (
  country                     text NOT NULL,
  building_number             text NOT NULL,
  cadastre_id                 text,
  built_year                  integer,
  floors                      integer,
  gross_area_m2               double precision,
  usable_area_m2              double precision,
  residential_usable_area_m2  double precision,
  other_usable_area_m2        double precision,
  built_over_area_m2          double precision,
  dwelling_unit_count         integer,
  has_lift                    boolean,
  water_supply                text,
  sewerage                    text,
  energy_sources              text[],
  heating_types               text[],
  usage_group                 text,
  registration_origin         text,
  is_cultural_heritage        boolean,
  is_sefrak_registered        boolean,
  base_elevation_m            double precision,
  highest_point_m             double precision,
  height_above_ground_m       double precision,
  row_hash                    uuid NOT NULL,
  published_run_id            text NOT NULL,
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, building_number)
);
CREATE INDEX building_detail_cadastre_idx ON building_detail (country, cadastre_id);

CREATE TABLE building_floor (
  country              text NOT NULL,
  building_number      text NOT NULL,
  floor_number         integer NOT NULL,
  floor_kind           text NOT NULL,
  usable_area_m2       double precision,
  room_count           integer,
  dwelling_unit_count  integer,
  PRIMARY KEY (country, building_number, floor_kind, floor_number)
);

-- Sections (eierseksjoner) of a property: `cadastre_id` is the section's own id,
-- `property_cadastre_id` the property it divides (section number 0).
CREATE TABLE section (
  country               text NOT NULL,
  cadastre_id           text NOT NULL,
  property_cadastre_id  text NOT NULL,
  section_number        text NOT NULL,
  share_numerator       integer,
  share_denominator     integer,
  use_type              text,
  row_hash              uuid NOT NULL,
  published_run_id      text NOT NULL,
  updated_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id)
);
CREATE INDEX section_property_idx ON section (country, property_cadastre_id);

-- Units (bruksenheter): dwellings and commercial units in a building, H0101 and the like.
CREATE TABLE unit (
  country                text NOT NULL,
  unit_id                text NOT NULL,
  unit_number            text NOT NULL,
  building_number        text,
  cadastre_id            text NOT NULL,
  floor                  integer,
  usable_area_m2         double precision,
  gross_area_m2          double precision,
  primary_room_area_m2   double precision,
  use_type               text,
  room_count             integer,
  bathroom_count         integer,
  toilet_count           integer,
  kitchen_access         text,
  ownership_form         text,
  energy_label           text,
  to_be_decommissioned   boolean,
  address_id             text,
  row_hash               uuid NOT NULL,
  published_run_id       text NOT NULL,
  updated_at             timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, unit_id)
);
CREATE INDEX unit_cadastre_idx ON unit (country, cadastre_id);

-- People named in the land register. Names live only here, apart from the rights they hold,
-- so a reader without `owners.read` never joins them; birth years stay on the rights.
CREATE TABLE person (
  country           text NOT NULL,
  person_id         text NOT NULL,
  name              text NOT NULL,
  row_hash          uuid NOT NULL,
  published_run_id  text NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, person_id)
);

-- Title holders (hjemmelshavere / lagfarna ägare) of a property or a section.
CREATE TABLE owner (
  country             text NOT NULL,
  owner_key           text NOT NULL,
  cadastre_id         text NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('PERSON', 'ORGANIZATION')),
  person_id           text,
  birth_year          integer,
  org_scheme          text,
  org_id              text,
  org_name            text,
  org_country         text,
  share_numerator     integer,
  share_denominator   integer,
  registered_at       timestamptz,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, owner_key)
);
CREATE INDEX owner_cadastre_idx ON owner (country, cadastre_id);
CREATE INDEX owner_org_idx ON owner (org_scheme, org_id) WHERE org_id IS NOT NULL;

-- Registered transfers (tinglyste overdragelser / köp).
CREATE TABLE property_transaction (
  country             text NOT NULL,
  transaction_id      text NOT NULL,
  cadastre_id         text NOT NULL,
  registered_at       timestamptz NOT NULL,
  kind                text NOT NULL,
  price_amount        numeric(16, 2),
  price_currency      text,
  share_numerator     integer,
  share_denominator   integer,
  source              text NOT NULL,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, transaction_id)
);
CREATE INDEX property_transaction_cadastre_idx ON property_transaction (country, cadastre_id, registered_at DESC);

-- Buyers and sellers of a transaction, in register order.
CREATE TABLE transaction_party (
  country             text NOT NULL,
  transaction_id      text NOT NULL,
  role                text NOT NULL CHECK (role IN ('BUYER', 'SELLER')),
  ordinal             integer NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('PERSON', 'ORGANIZATION')),
  person_id           text,
  birth_year          integer,
  org_scheme          text,
  org_id              text,
  org_name            text,
  org_country         text,
  share_numerator     integer,
  share_denominator   integer,
  PRIMARY KEY (country, transaction_id, role, ordinal)
);

CREATE TABLE energy_certificate (
  country             text NOT NULL,
  certificate_id      text NOT NULL,
  cadastre_id         text,
  building_number     text,
  municipality_code   text NOT NULL,
  label               text,
  heating_grade       text,
  issued_date         date,
  valid_to_date       date,
  source              text NOT NULL,
  address_text        text,
  postal_code         text,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, certificate_id)
);
CREATE INDEX energy_certificate_cadastre_idx ON energy_certificate (country, cadastre_id);

CREATE TABLE certification (
  country             text NOT NULL,
  certification_id    text NOT NULL,
  cadastre_id         text,
  building_number     text,
  municipality_code   text NOT NULL,
  scheme              text NOT NULL,
  rating              text,
  certified_date      date,
  certified_area_m2   double precision,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, certification_id)
);
CREATE INDEX certification_cadastre_idx ON certification (country, cadastre_id);

CREATE TABLE zoning_plan (
  country             text NOT NULL,
  municipality_code   text NOT NULL,
  plan_id             text NOT NULL,
  name                text NOT NULL,
  status              text NOT NULL CHECK (status IN ('PROPOSED', 'ADOPTED', 'REPEALED')),
  purpose             text,
  adopted_date        date,
  bya_pct             double precision,
  bra_m2              double precision,
  geom                geometry(MultiPolygon, 4326) NOT NULL,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, municipality_code, plan_id)
);
CREATE INDEX zoning_plan_geom_idx ON zoning_plan USING gist (geom);

CREATE TABLE zoning_plan_document (
  country             text NOT NULL,
  municipality_code   text NOT NULL,
  plan_id             text NOT NULL,
  document_id         text NOT NULL,
  kind                text NOT NULL,
  title               text NOT NULL,
  published_date      date,
  -- Where the document is fetched from; the API hands out a signed, time-limited URL of its own.
  source_url          text NOT NULL,
  media_type          text,
  PRIMARY KEY (country, municipality_code, plan_id, document_id)
);

-- Building permit cases (byggesaker) per property.
CREATE TABLE building_permit (
  country             text NOT NULL,
  case_id             text NOT NULL,
  cadastre_id         text NOT NULL,
  municipality_code   text NOT NULL,
  case_number         text,
  building_number     text,
  kind                text,
  status              text,
  description         text,
  applied_date        date,
  decided_date        date,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, case_id)
);
CREATE INDEX building_permit_cadastre_idx ON building_permit (country, cadastre_id, applied_date DESC);

-- Companies (Norway: enheter and underenheter; Sweden: Bolagsverket merged with SCB),
-- keyed by ISO 6523 scheme (0192 Brønnøysund, 0007 Bolagsverket) and register id.
CREATE TABLE company (
  country             text NOT NULL,
  org_scheme          text NOT NULL,
  org_id              text NOT NULL,
  name                text NOT NULL,
  -- A sub-unit (underenhet / arbetsställe) names the unit it belongs to.
  parent_org_id       text,
  is_sub_unit         boolean NOT NULL DEFAULT false,
  legal_form          text,
  nace_code           text,
  nace_name           text,
  employees           integer,
  founded_date        date,
  registered_date     date,
  website             text,
  deleted_date        date,
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_scheme, org_id)
);
CREATE INDEX company_country_idx ON company (country);

-- A company's addresses as the register spells them: business / location (the input to
-- tenants), postal, and visiting addresses of workplaces.
CREATE TABLE company_address (
  org_scheme          text NOT NULL,
  org_id              text NOT NULL,
  address_kind        text NOT NULL CHECK (address_kind IN ('BUSINESS', 'POSTAL', 'VISITING')),
  ordinal             integer NOT NULL DEFAULT 0,
  country             text NOT NULL,
  address_lines       text[],
  postal_code         text,
  postal_place        text,
  municipality_code   text,
  PRIMARY KEY (org_scheme, org_id, address_kind, ordinal)
);
CREATE INDEX company_address_postal_idx ON company_address (country, postal_code);

-- Municipalities gain their boundary; the area sources publish them.
ALTER TABLE municipality
  ADD COLUMN geom geometry(MultiPolygon, 4326),
  ADD COLUMN row_hash uuid,
  ADD COLUMN published_run_id text,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX municipality_geom_idx ON municipality USING gist (geom);

-- Sub-areas other than municipalities: grunnkretser (GRUNNKRETS) and postal code areas (POSTAL_CODE).
CREATE TABLE area (
  country             text NOT NULL,
  area_kind           text NOT NULL CHECK (area_kind IN ('GRUNNKRETS', 'POSTAL_CODE')),
  area_code           text NOT NULL,
  name                text,
  municipality_code   text,
  geom                geometry(MultiPolygon, 4326),
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, area_kind, area_code)
);
CREATE INDEX area_geom_idx ON area USING gist (geom);

-- Land allocations (tomtetildelinger / markanvisningar) a municipality announces.
CREATE TABLE land_allocation (
  country             text NOT NULL,
  allocation_id       text NOT NULL,
  municipality_code   text NOT NULL,
  grunnkrets_code     text,
  postal_code         text,
  title               text NOT NULL,
  purpose             text,
  status              text,
  area_m2             double precision,
  price_amount        numeric(16, 2),
  price_currency      text,
  announced_date      date,
  deadline_date       date,
  url                 text,
  geom                geometry(Geometry, 4326),
  row_hash            uuid NOT NULL,
  published_run_id    text NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, allocation_id)
);
CREATE INDEX land_allocation_municipality_idx ON land_allocation (country, municipality_code);

-- A Swedish designation has underscores (`0180_KUNGSHOLMEN_1_2`); a Norwegian one hyphens.
CREATE OR REPLACE FUNCTION property_type(cadastre_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN strpos(cadastre_id, '_') > 0 THEN 'FASTIGHET'
            WHEN split_part(cadastre_id, '-', 5) <> '0' THEN 'EIERSEKSJON'
            WHEN split_part(cadastre_id, '-', 4) <> '0' THEN 'FESTEGRUNN'
            ELSE 'GRUNNEIENDOM' END;

-- The municipality code a cadastre id starts with, in either country's form.
CREATE FUNCTION cadastre_municipality(cadastre_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN strpos(cadastre_id, '_') > 0 THEN split_part(cadastre_id, '_', 1)
            ELSE split_part(cadastre_id, '-', 1) END;

-- Properties: the units the parcels belong to, plus sections, which have no teig of their own.
CREATE OR REPLACE VIEW property AS
SELECT country, cadastre_id, cadastre_municipality(cadastre_id) AS municipality_code, property_type(cadastre_id) AS property_type
FROM parcel_property
GROUP BY country, cadastre_id
UNION
SELECT country, cadastre_id, cadastre_municipality(cadastre_id), property_type(cadastre_id)
FROM section;

-- Down Migration
CREATE OR REPLACE VIEW property AS
SELECT country, cadastre_id, split_part(cadastre_id, '-', 1) AS municipality_code, property_type(cadastre_id) AS property_type
FROM parcel_property
GROUP BY country, cadastre_id;
CREATE OR REPLACE FUNCTION property_type(cadastre_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN split_part(cadastre_id, '-', 5) <> '0' THEN 'EIERSEKSJON'
            WHEN split_part(cadastre_id, '-', 4) <> '0' THEN 'FESTEGRUNN'
            ELSE 'GRUNNEIENDOM' END;
DROP FUNCTION cadastre_municipality(text);
DROP TABLE land_allocation;
DROP TABLE area;
DROP INDEX municipality_geom_idx;
ALTER TABLE municipality DROP COLUMN geom, DROP COLUMN row_hash, DROP COLUMN published_run_id, DROP COLUMN updated_at;
DROP TABLE company_address;
DROP TABLE company;
DROP TABLE building_permit;
DROP TABLE zoning_plan_document;
DROP TABLE zoning_plan;
DROP TABLE certification;
DROP TABLE energy_certificate;
DROP TABLE transaction_party;
DROP TABLE property_transaction;
DROP TABLE owner;
DROP TABLE person;
DROP TABLE unit;
DROP TABLE section;
DROP TABLE building_floor;
DROP TABLE building_detail;
DROP TABLE building_status_history;
DROP TABLE building;
DROP TABLE property_register;
