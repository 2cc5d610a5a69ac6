-- Up Migration

-- The class of a building type: the first digit of a Norwegian bygningstype code (1 dwellings,
-- 2 industry and storage, 3 offices, ...), the objekttyp of a Swedish purpose (`Bostad` of
-- `Bostad;Småhus friliggande`).
CREATE FUNCTION building_class(building_type text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN strpos(building_type, ';') > 0 THEN split_part(building_type, ';', 1) ELSE left(building_type, 1) END;

-- How alike a sale is to the property it is a comparable of, in [0, 1]: a weighted mean of five
-- component similarities, each in [0, 1] (docs/derived/comparables.md):
--   distance 0.35       1 / (1 + d / 750 m): 1 next door, 0.5 at 750 m, 0.13 at 5 km;
--   size 0.25           exp(-|ln(a / b)| / 0.35): 1 for equal floor areas, 0.24 for double;
--   building type 0.15  1 for the same code, 0.5 for the same class (first digit in Norway,
--                       objekttyp in Sweden), 0 otherwise;
--   building age 0.15   exp(-|Δ built year| / 25); 0.5 when either year is unknown;
--   property type 0.10  1 for the same (EIERSEKSJON, FESTEGRUNN, ...), 0 otherwise.
CREATE FUNCTION comparable_similarity(
  distance_m double precision,
  size_m2 double precision, other_size_m2 double precision,
  property_type text, other_property_type text,
  building_type text, other_building_type text,
  built_year integer, other_built_year integer
) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN round((
    0.35 * (1 / (1 + greatest(distance_m, 0) / 750))
  + 0.25 * CASE WHEN size_m2 > 0 AND other_size_m2 > 0 THEN exp(-abs(ln(size_m2 / other_size_m2)) / 0.35) ELSE 0 END
  + 0.15 * CASE WHEN building_type = other_building_type THEN 1.0::double precision
                WHEN building_class(building_type) = building_class(other_building_type) THEN 0.5
                ELSE 0 END
  + 0.15 * CASE WHEN built_year IS NULL OR other_built_year IS NULL THEN 0.5::double precision
                ELSE exp(-abs(built_year - other_built_year)::double precision / 25) END
  + 0.10 * CASE WHEN property_type = other_property_type THEN 1.0::double precision ELSE 0 END
  )::numeric, 4)::double precision;

-- Down Migration
DROP FUNCTION comparable_similarity(double precision, double precision, double precision, text, text, text, text, integer, integer);
DROP FUNCTION building_class(text);
