-- Up Migration

-- One function writes the API's Owner. 1763902000100 added api_party_registered, a copy of
-- api_party taking registeredAt already written (api_registered_at, so a registration day stays a
-- day); api_party itself had no caller left. api_party now takes the written value and the copy
-- goes.
--
-- Volatility: both are STABLE, not IMMUTABLE. api_registered_at writes its day with to_char and
-- api_party builds its object with json_build_object, and PostgreSQL declares both STABLE (they
-- read session settings: to_char the locale, json_build_object the types' output settings).
-- No index, generated column or constraint uses either function, so nothing needs IMMUTABLE.
DROP FUNCTION api_party(text, text, integer, text, text, text, text, integer, integer, timestamptz);
DROP FUNCTION api_party_registered(text, text, integer, text, text, text, text, integer, integer, text);

-- An owner, buyer or seller. `person_name` is passed only for a caller holding owners.read;
-- `registered_at` as api_registered_at writes it.
CREATE FUNCTION api_party(kind text, person_name text, birth_year integer, org_scheme text, org_id text, org_name text,
                          org_country text, share_numerator integer, share_denominator integer, registered_at text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
  'kind', kind,
  'organization', CASE WHEN kind = 'ORGANIZATION' THEN json_build_object(
      'organizationIdentifier', json_build_object('scheme', org_scheme, 'id', org_id), 'name', org_name, 'country', org_country) END,
  'person', CASE WHEN kind = 'PERSON' THEN json_build_object('name', person_name, 'birthYear', birth_year) END,
  'share', api_share(share_numerator, share_denominator),
  'registeredAt', registered_at);

ALTER FUNCTION api_registered_at(timestamptz, text) STABLE;

-- Down Migration
ALTER FUNCTION api_registered_at(timestamptz, text) IMMUTABLE;

DROP FUNCTION api_party(text, text, integer, text, text, text, text, integer, integer, text);

CREATE FUNCTION api_party_registered(kind text, person_name text, birth_year integer, org_scheme text, org_id text, org_name text,
                                     org_country text, share_numerator integer, share_denominator integer, registered_at text) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN json_build_object(
  'kind', kind,
  'organization', CASE WHEN kind = 'ORGANIZATION' THEN json_build_object(
      'organizationIdentifier', json_build_object('scheme', org_scheme, 'id', org_id), 'name', org_name, 'country', org_country) END,
  'person', CASE WHEN kind = 'PERSON' THEN json_build_object('name', person_name, 'birthYear', birth_year) END,
  'share', api_share(share_numerator, share_denominator),
  'registeredAt', registered_at);

CREATE FUNCTION api_party(kind text, person_name text, birth_year integer, org_scheme text, org_id text, org_name text,
                          org_country text, share_numerator integer, share_denominator integer, registered_at timestamptz) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN json_build_object(
  'kind', kind,
  'organization', CASE WHEN kind = 'ORGANIZATION' THEN json_build_object(
      'organizationIdentifier', json_build_object('scheme', org_scheme, 'id', org_id), 'name', org_name, 'country', org_country) END,
  'person', CASE WHEN kind = 'PERSON' THEN json_build_object('name', person_name, 'birthYear', birth_year) END,
  'share', api_share(share_numerator, share_denominator),
  'registeredAt', api_timestamp(registered_at));
