-- Up Migration

-- Sweden: energy declarations, companies, property prices and areas. What their publishes need
-- beyond the shared live schema (1763800000000) and the columns other migrations already add
-- (energy_certificate.postal_place/building_category/construction_year,
-- property_transaction.municipality_code/register_kind, owner.municipality_code, area_m2).

-- Boverket energideklarationer: the declaration's figures and every property it covers.
ALTER TABLE energy_certificate
  ADD COLUMN cadastre_ids                 text[],
  ADD COLUMN house_number                 text,
  ADD COLUMN energy_performance_kwh_m2    double precision,
  ADD COLUMN primary_energy_kwh_m2        double precision,
  ADD COLUMN specific_energy_use_kwh_m2   double precision,
  ADD COLUMN heated_area_m2               double precision,
  ADD COLUMN building_type                text,
  ADD COLUMN floor_count                  integer,
  ADD COLUMN radon_measurement            text,
  ADD COLUMN ventilation_check            text;

-- Bolagsverket + SCB: what the merged record carries beyond the shared columns.
ALTER TABLE company
  ADD COLUMN name_protection_no     text,
  ADD COLUMN business_description   text,
  ADD COLUMN secondary_nace_codes   text[],
  ADD COLUMN register_status        text,
  ADD COLUMN ongoing_procedure      text;

-- SCB workplaces (arbetsställen, CFAR number) of a company, with their visiting address; the
-- address itself is also a VISITING row of company_address, for tenant matching.
CREATE TABLE company_workplace (
  org_scheme          text NOT NULL,
  org_id              text NOT NULL,
  workplace_id        text NOT NULL,
  country             text NOT NULL,
  name                text,
  status              text,
  municipality_code   text,
  started_date        date,
  ended_date          date,
  PRIMARY KEY (country, workplace_id)
);
CREATE INDEX company_workplace_company_idx ON company_workplace (org_scheme, org_id);

-- Lantmäteriet fastighetsprisregistret: the sale's own facts. The taxation value at the time of
-- sale lives here, not in property_register.taxation_value (owned by the cadastre source).
ALTER TABLE property_transaction
  ADD COLUMN purchase_date             date,
  ADD COLUMN object_type_code          text,
  ADD COLUMN object_type_name          text,
  ADD COLUMN taxation_unit_type_code   text,
  ADD COLUMN taxation_value            numeric(16, 2),
  ADD COLUMN taxation_year             integer,
  ADD COLUMN price_coefficient         double precision;

-- Markanvisningar: the municipality's own identifier is part of the key.
ALTER TABLE land_allocation
  ADD COLUMN source_ref text;

-- Down Migration
ALTER TABLE land_allocation DROP COLUMN source_ref;
ALTER TABLE property_transaction
  DROP COLUMN purchase_date, DROP COLUMN object_type_code, DROP COLUMN object_type_name,
  DROP COLUMN taxation_unit_type_code, DROP COLUMN taxation_value, DROP COLUMN taxation_year, DROP COLUMN price_coefficient;
DROP TABLE company_workplace;
ALTER TABLE company
  DROP COLUMN name_protection_no, DROP COLUMN business_description, DROP COLUMN secondary_nace_codes,
  DROP COLUMN register_status, DROP COLUMN ongoing_procedure;
ALTER TABLE energy_certificate
  DROP COLUMN cadastre_ids, DROP COLUMN house_number, DROP COLUMN energy_performance_kwh_m2, DROP COLUMN primary_energy_kwh_m2,
  DROP COLUMN specific_energy_use_kwh_m2, DROP COLUMN heated_area_m2, DROP COLUMN building_type, DROP COLUMN floor_count,
  DROP COLUMN radon_measurement, DROP COLUMN ventilation_check;
