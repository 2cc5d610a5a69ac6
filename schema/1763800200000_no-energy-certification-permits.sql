-- Up Migration

-- What the Enova energy-certificate file carries beyond the shared columns: the unit
-- (bruksenhetsnummer H0101, andelsnummer of a housing co-op), the certificate's own figures,
-- and the issue time as the register writes it (local time, no offset).
ALTER TABLE energy_certificate
  ADD COLUMN postal_place              text,
  ADD COLUMN unit_number               text,
  ADD COLUMN share_number              text,
  ADD COLUMN organization_number       text,
  ADD COLUMN building_category         text,
  ADD COLUMN construction_year         integer,
  ADD COLUMN registration_type         text,
  ADD COLUMN delivered_energy_kwh_m2   double precision,
  ADD COLUMN fossil_share              double precision,
  ADD COLUMN material                  text,
  ADD COLUMN has_energy_assessment     boolean,
  ADD COLUMN energy_assessment_date    date,
  ADD COLUMN issued_at                 timestamp;
CREATE INDEX energy_certificate_building_idx ON energy_certificate (country, building_number);

-- Environmental certifications: the scheme's version, assessment stage and score.
ALTER TABLE certification
  ADD COLUMN project_name     text,
  ADD COLUMN scheme_version   text,
  ADD COLUMN stage            text,
  ADD COLUMN score_pct        double precision,
  ADD COLUMN valid_to_date    date,
  ADD COLUMN certified_by     text;

-- Building permit cases: the application type (one-step, frame, commencement, …) and the
-- completion certificate date.
ALTER TABLE building_permit
  ADD COLUMN application_type   text,
  ADD COLUMN completed_date     date;

-- Down Migration

ALTER TABLE building_permit DROP COLUMN application_type, DROP COLUMN completed_date;
ALTER TABLE certification
  DROP COLUMN project_name, DROP COLUMN scheme_version, DROP COLUMN stage, DROP COLUMN score_pct,
  DROP COLUMN valid_to_date, DROP COLUMN certified_by;
DROP INDEX energy_certificate_building_idx;
ALTER TABLE energy_certificate
  DROP COLUMN postal_place, DROP COLUMN unit_number, DROP COLUMN share_number, DROP COLUMN organization_number,
  DROP COLUMN building_category, DROP COLUMN construction_year, DROP COLUMN registration_type,
  DROP COLUMN delivered_energy_kwh_m2, DROP COLUMN fossil_share, DROP COLUMN material,
  DROP COLUMN has_energy_assessment, DROP COLUMN energy_assessment_date, DROP COLUMN issued_at;
