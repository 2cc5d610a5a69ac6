-- Up Migration

-- property_type() called every Swedish property FASTIGHET. A Swedish id's block slot says what
-- kind of register unit it is (sources/se/cadastre-id.ts, UNIT_CODES): `S` a samfällighet,
-- `GA` a gemensamhetsanläggning, `FA` a fiskeområde; a number (or no block: a kvarter) a
-- fastighet. Only an id of four segments has a block slot (the trakt never holds `_`).
CREATE OR REPLACE FUNCTION property_type(cadastre_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN strpos(cadastre_id, '_') > 0 THEN
              CASE substring(cadastre_id FROM '^[^_]+_[^_]+_([^_]+)_[^_]+$')
                WHEN 'S' THEN 'SAMFÄLLIGHET'
                WHEN 'GA' THEN 'GEMENSAMHETSANLÄGGNING'
                WHEN 'FA' THEN 'FISKEOMRÅDE'
                ELSE 'FASTIGHET' END
            WHEN split_part(cadastre_id, '-', 5) <> '0' THEN 'EIERSEKSJON'
            WHEN split_part(cadastre_id, '-', 4) <> '0' THEN 'FESTEGRUNN'
            ELSE 'GRUNNEIENDOM' END;

-- Down Migration
CREATE OR REPLACE FUNCTION property_type(cadastre_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN strpos(cadastre_id, '_') > 0 THEN 'FASTIGHET'
            WHEN split_part(cadastre_id, '-', 5) <> '0' THEN 'EIERSEKSJON'
            WHEN split_part(cadastre_id, '-', 4) <> '0' THEN 'FESTEGRUNN'
            ELSE 'GRUNNEIENDOM' END;
