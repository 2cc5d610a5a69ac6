-- Up Migration

-- A Swedish energy declaration is listed under every property it covers (`cadastre_ids`), not
-- only its first (`cadastre_id`): the API looks a property up among them with `@>`.
CREATE INDEX energy_certificate_cadastre_ids_idx ON energy_certificate USING gin (cadastre_ids);

-- Down Migration
DROP INDEX energy_certificate_cadastre_ids_idx;
