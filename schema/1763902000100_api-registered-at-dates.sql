-- Up Migration

-- registeredAt as the registers give it. Both registers mostly give only the day a title or a
-- transfer was registered (the grunnbok's tinglysingsdato, Lantmäteriet's inskrivningsdag); the
-- publishers store such a day as its local midnight (timestamptz), and the API wrote that instant
-- in UTC: 2009-01-04 became 2009-01-03T23:00:00Z, the day before. A value at exactly local
-- midnight in the property's country is a day and is written as one (YYYY-MM-DD); any other is
-- a moment the register gave and stays an RFC 3339 UTC timestamp.
CREATE FUNCTION api_registered_at(t timestamptz, country text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
  WHEN t IS NULL THEN NULL
  WHEN (t AT TIME ZONE CASE country WHEN 'SE' THEN 'Europe/Stockholm' ELSE 'Europe/Oslo' END)::time = time '00:00'
    THEN to_char((t AT TIME ZONE CASE country WHEN 'SE' THEN 'Europe/Stockholm' ELSE 'Europe/Oslo' END)::date, 'YYYY-MM-DD')
  ELSE api_timestamp(t)
END;

-- api_party with registeredAt already written (api_registered_at), so a day stays a day.
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

-- Down Migration
DROP FUNCTION api_party_registered(text, text, integer, text, text, text, text, integer, integer, text);
DROP FUNCTION api_registered_at(timestamptz, text);
