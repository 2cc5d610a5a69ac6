-- Up Migration

-- API clients (OAuth 2.0 client credentials). The secret is kept only as an scrypt hash
-- (`scrypt$N$r$p$salt$hash`, base64), so a dump of the store does not reveal it.
CREATE TABLE api_client (
  client_id         text PRIMARY KEY,
  secret_hash       text NOT NULL,
  name              text,
  tier              text NOT NULL,
  scopes            text[] NOT NULL,
  daily_call_limit  integer NOT NULL CHECK (daily_call_limit > 0),
  -- Requests per short window (`burst_window_s` seconds).
  burst_limit       integer NOT NULL CHECK (burst_limit > 0),
  burst_window_s    integer NOT NULL DEFAULT 1 CHECK (burst_window_s > 0),
  sandbox           boolean NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- Issued access tokens, by the SHA-256 of the token (the token itself is never stored).
CREATE TABLE api_access_token (
  token_hash   bytea PRIMARY KEY,
  client_id    text NOT NULL REFERENCES api_client ON DELETE CASCADE,
  scopes       text[] NOT NULL,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX api_access_token_expiry_idx ON api_access_token (expires_at);

-- Calls per client and UTC day: the count lives here, not in one process, so every API process
-- sees the same `callsToday`.
CREATE TABLE api_daily_calls (
  client_id  text NOT NULL REFERENCES api_client ON DELETE CASCADE,
  day        date NOT NULL,
  calls      integer NOT NULL,
  PRIMARY KEY (client_id, day)
);

-- Short rate-limit windows per subject (`client:<id>` or `ip:<address>`), shared by all processes.
CREATE UNLOGGED TABLE api_rate_window (
  subject       text NOT NULL,
  window_start  timestamptz NOT NULL,
  calls         integer NOT NULL,
  PRIMARY KEY (subject, window_start)
);

-- Stored responses of POSTs with an Idempotency-Key, replayed for 24 hours.
CREATE TABLE api_idempotency (
  client_id        text NOT NULL REFERENCES api_client ON DELETE CASCADE,
  idempotency_key  text NOT NULL,
  operation        text NOT NULL,
  request_hash     text NOT NULL,
  status_code      integer NOT NULL,
  response         jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, idempotency_key)
);
CREATE INDEX api_idempotency_created_idx ON api_idempotency (created_at);

-- Webhook subscriptions. The signing secret must be usable for HMAC, so it cannot be hashed: it
-- is stored AES-256-GCM encrypted with a key kept outside the database (docs/api.md).
CREATE TABLE subscription (
  subscription_id    uuid PRIMARY KEY,
  client_id          text NOT NULL REFERENCES api_client ON DELETE CASCADE,
  target_kind        text NOT NULL CHECK (target_kind IN ('PROPERTY', 'COMPANY')),
  target_country     text,
  target_cadastre_id text,
  target_scheme      text,
  target_id          text,
  events             text[] NOT NULL,
  webhook_url        text NOT NULL,
  secret_encrypted   text NOT NULL,
  status             text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'PAUSED')),
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscription_client_idx ON subscription (client_id, created_at);
CREATE INDEX subscription_property_idx ON subscription (target_country, target_cadastre_id) WHERE target_kind = 'PROPERTY';
CREATE INDEX subscription_company_idx ON subscription (target_scheme, target_id) WHERE target_kind = 'COMPANY';

-- The properties a sandbox client may see.
CREATE TABLE api_demo_property (
  country      text NOT NULL,
  cadastre_id  text NOT NULL,
  PRIMARY KEY (country, cadastre_id)
);

-- Derived datasets the nightly derive step computes; the API serves them from here (empty until then).
CREATE TABLE tenant (
  country               text NOT NULL,
  cadastre_id           text NOT NULL,
  org_scheme            text NOT NULL,
  org_id                text NOT NULL,
  name                  text NOT NULL,
  org_country           text NOT NULL,
  verification_source   text NOT NULL,
  confidence            text NOT NULL,
  last_seen_at          timestamptz NOT NULL,
  employees             integer,
  nace_code             text,
  nace_name             text,
  unit_number           text,
  legal_form            text,
  founded_date          date,
  moved_in_date         date,
  website               text,
  is_owner              boolean NOT NULL DEFAULT false,
  updated_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id, org_scheme, org_id)
);

-- Comparable sales of a property: the transaction itself lives in property_transaction.
CREATE TABLE comparable_transaction (
  country                 text NOT NULL,
  cadastre_id             text NOT NULL,
  transaction_id          text NOT NULL,
  distance_m              double precision NOT NULL,
  price_per_m2_amount     numeric(16, 2),
  price_per_m2_currency   text,
  similarity              double precision NOT NULL,
  updated_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id, transaction_id)
);

CREATE TABLE valuation (
  country                  text NOT NULL,
  cadastre_id              text NOT NULL,
  currency                 text NOT NULL,
  value_estimate           numeric(16, 2) NOT NULL,
  value_low                numeric(16, 2) NOT NULL,
  value_high               numeric(16, 2) NOT NULL,
  rent_estimate_per_m2_year numeric(16, 2),
  rent_low                 numeric(16, 2),
  rent_high                numeric(16, 2),
  method                   text NOT NULL,
  valued_at                timestamptz NOT NULL,
  PRIMARY KEY (country, cadastre_id)
);

CREATE TABLE utilization (
  country           text NOT NULL,
  cadastre_id       text NOT NULL,
  allowed_bya       double precision,
  allowed_bra_m2    double precision,
  built_bra_m2      double precision,
  remaining_bra_m2  double precision,
  basis             text,
  computed_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, cadastre_id)
);

-- Address search. address_fold_plain: lower case, Nordic letters to ASCII (ø→o, å→a, ä→a, ö→o,
-- æ→ae), the abbreviations gt. / vn. / v. without their dot, punctuation to spaces.
-- address_fold also writes the street endings one way: gata/gate → gt, veien/vegen/vägen/vei/veg → vn,
-- so "Storgt. 5" finds "Storgata 5" and "Kungsv. 2" finds "Kungsvägen 2". The search key holds
-- both forms, so a partial word ("Storga") still matches; it is searched by trigrams.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION address_fold_plain(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(btrim(regexp_replace(
  translate(
    replace(replace(regexp_replace(regexp_replace(lower(t), 'gt\.', 'gt ', 'g'), 'vn?\.', 'vn ', 'g'), 'æ', 'ae'), 'ß', 'ss'),
    'øåäöüéèêáàâóòôíìúùëïçñšž', 'oaaoueeeaaaoooiiuueicnsz'),
  '[^[:alnum:]]+', ' ', 'g')),
  -- A Swedish postal code is written "112 21" as often as "11221".
  '\m([0-9]{3}) ([0-9]{2})\M', '\1\2', 'g');

CREATE FUNCTION address_fold(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(regexp_replace(address_fold_plain(t), '(gata|gate)\M', 'gt', 'g'), '(veien|vegen|vagen|vei|veg)\M', 'vn', 'g');

CREATE FUNCTION address_search_key(address_text text, postal_code text, postal_place text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN address_fold_plain(concat_ws(' ', address_text, postal_code, postal_place)) || ' ' || address_fold(address_text);

CREATE INDEX address_search_idx ON address USING gin (address_search_key(address_text, postal_code, postal_place) gin_trgm_ops);

-- JSON shapes of the API's value objects, built where the rows are (one round trip per request).
-- Absent values are NULL and removed by json_strip_nulls at the top of each response.
CREATE FUNCTION api_money(amount numeric, currency text) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN amount IS NOT NULL AND currency IS NOT NULL THEN json_build_object('amount', round(amount, 2)::text, 'currency', currency) END;

CREATE FUNCTION api_share(numerator integer, denominator integer) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN numerator IS NOT NULL AND denominator IS NOT NULL THEN json_build_object('numerator', numerator, 'denominator', denominator) END;

CREATE FUNCTION api_date(d date) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_char(d, 'YYYY-MM-DD');

CREATE FUNCTION api_timestamp(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');

CREATE FUNCTION api_location(g geometry) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN g IS NOT NULL THEN json_build_object('lat', round(ST_Y(g)::numeric, 7), 'lon', round(ST_X(g)::numeric, 7)) END;

CREATE FUNCTION api_address(a address) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
  'text', a.address_text, 'streetName', a.street_name,
  'houseNumber', a.house_number::text || coalesce(a.house_letter, ''),
  'postalCode', a.postal_code, 'postalPlace', a.postal_place, 'country', a.country,
  'cadastreId', a.cadastre_id, 'location', api_location(a.geom));

-- An owner, buyer or seller. `person_name` is passed only for a caller holding owners.read.
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

-- Down Migration
DROP FUNCTION api_party(text, text, integer, text, text, text, text, integer, integer, timestamptz);
DROP FUNCTION api_address(address);
DROP FUNCTION api_location(geometry);
DROP FUNCTION api_timestamp(timestamptz);
DROP FUNCTION api_date(date);
DROP FUNCTION api_share(integer, integer);
DROP FUNCTION api_money(numeric, text);
DROP INDEX address_search_idx;
DROP FUNCTION address_search_key(text, text, text);
DROP FUNCTION address_fold(text);
DROP FUNCTION address_fold_plain(text);
DROP TABLE utilization;
DROP TABLE valuation;
DROP TABLE comparable_transaction;
DROP TABLE tenant;
DROP TABLE api_demo_property;
DROP TABLE subscription;
DROP TABLE api_idempotency;
DROP TABLE api_rate_window;
DROP TABLE api_daily_calls;
DROP TABLE api_access_token;
DROP TABLE api_client;
