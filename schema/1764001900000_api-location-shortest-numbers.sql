-- Up Migration

-- A location's degrees as float8 instead of numeric: rounded to 7 decimals (about a centimetre)
-- as before, but written the shortest way, "58.0004" instead of "58.0004000". The coordinate
-- endpoint sends PostgreSQL's JSON text as it is (api/store/coordinates.ts), so this text is
-- what a client reads; the other endpoints parse it, and a float8 parses to the same number.
CREATE FUNCTION api_lat_lon(lat double precision, lon double precision) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object('lat', round(lat::numeric, 7)::float8, 'lon', round(lon::numeric, 7)::float8);

CREATE OR REPLACE FUNCTION api_location(g geometry) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN g IS NOT NULL THEN api_lat_lon(ST_Y(g), ST_X(g)) END;

-- Down Migration
CREATE OR REPLACE FUNCTION api_location(g geometry) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN g IS NOT NULL THEN json_build_object('lat', round(ST_Y(g)::numeric, 7), 'lon', round(ST_X(g)::numeric, 7)) END;
DROP FUNCTION api_lat_lon(double precision, double precision);
