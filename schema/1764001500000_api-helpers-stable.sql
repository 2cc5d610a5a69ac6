-- Up Migration

-- The API's one-expression helpers are STABLE, as what they call is: to_char and
-- json_build_object read session settings, and PostgreSQL declares both STABLE. Declared
-- IMMUTABLE, they were never inlined into the queries that call them (PostgreSQL refuses to
-- inline an IMMUTABLE SQL function whose body is not immutable), so every date, timestamp,
-- amount, share and location of a response was a call into the SQL-function executor. No
-- index, generated column or constraint uses them, so nothing needs IMMUTABLE (as
-- 1764000000000 found for api_party and api_registered_at).
ALTER FUNCTION api_date(date) STABLE;
ALTER FUNCTION api_timestamp(timestamptz) STABLE;
ALTER FUNCTION api_money(numeric, text) STABLE;
ALTER FUNCTION api_share(integer, integer) STABLE;
ALTER FUNCTION api_location(geometry) STABLE;

-- Down Migration
ALTER FUNCTION api_date(date) IMMUTABLE;
ALTER FUNCTION api_timestamp(timestamptz) IMMUTABLE;
ALTER FUNCTION api_money(numeric, text) IMMUTABLE;
ALTER FUNCTION api_share(integer, integer) IMMUTABLE;
ALTER FUNCTION api_location(geometry) IMMUTABLE;
