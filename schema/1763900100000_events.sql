-- Up Migration

-- Change events for webhook subscriptions (docs/webhooks.md). One row per subscription, change
-- kind, target and publish transaction, written by the triggers below in the same transaction
-- that changes the live data, so an event exists if and only if its change was committed.
-- Delivery state lives on the same row (one delivery per event); attempts in webhook_attempt.
CREATE TABLE event_outbox (
  -- md5 of subscription, kind, target and publishing transaction: the same change always has
  -- the same id (the CloudEvents `id` receivers deduplicate on).
  event_id          uuid PRIMARY KEY,
  -- No foreign key: a deleted subscription's deliveries stay visible (`nordprop deliveries`).
  subscription_id   uuid NOT NULL,
  event_type        text NOT NULL CHECK (event_type IN ('OWNER_CHANGED', 'TRANSACTION_REGISTERED', 'TENANT_CHANGED', 'BUILDING_PERMIT_CHANGED')),
  target_kind       text NOT NULL CHECK (target_kind IN ('PROPERTY', 'COMPANY')),
  country           text,
  cadastre_id       text,
  org_scheme        text,
  org_id            text,
  changed_field     text NOT NULL,
  -- The run that published the change, when the publisher names it (SET LOCAL nordprop.run_id).
  run_id            text,
  xact_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
  -- The publish transaction's start: the CloudEvents `time`, identical on every redelivery.
  created_at        timestamptz NOT NULL DEFAULT now(),
  dispatched_at     timestamptz,
  status            text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'CANCELLED')),
  attempts          integer NOT NULL DEFAULT 0,
  last_attempt_at   timestamptz,
  last_status_code  integer,
  last_error        text,
  finished_at       timestamptz,
  CHECK ((target_kind = 'PROPERTY' AND country IS NOT NULL AND cadastre_id IS NOT NULL)
      OR (target_kind = 'COMPANY' AND org_scheme IS NOT NULL AND org_id IS NOT NULL))
);
CREATE INDEX event_outbox_undispatched_idx ON event_outbox (created_at) WHERE dispatched_at IS NULL;
CREATE INDEX event_outbox_subscription_idx ON event_outbox (subscription_id, created_at DESC);
CREATE INDEX event_outbox_created_idx ON event_outbox (created_at DESC);
-- Finished deliveries past their retention are pruned by age.
CREATE INDEX event_outbox_finished_idx ON event_outbox (finished_at) WHERE finished_at IS NOT NULL;

-- Every POST made for an event, successful or not.
CREATE TABLE webhook_attempt (
  event_id     uuid NOT NULL REFERENCES event_outbox ON DELETE CASCADE,
  attempt      integer NOT NULL CHECK (attempt > 0),
  started_at   timestamptz NOT NULL,
  duration_ms  integer NOT NULL,
  status_code  integer,
  error        text,
  outcome      text NOT NULL CHECK (outcome IN ('DELIVERED', 'RETRY', 'CANCELLED')),
  PRIMARY KEY (event_id, attempt)
);

-- Party rows of watched companies that a publish removed earlier in its transaction: a party
-- row inserted again for the same transaction and company is a rewrite, not a new registration.
-- Rows of finished transactions are removed by the next writer.
CREATE TABLE event_party_removed (
  xact_id         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  country         text NOT NULL,
  transaction_id  text NOT NULL,
  org_scheme      text NOT NULL,
  org_id          text NOT NULL
);

-- The cadastre ids whose change concerns an active property subscription to `kind`: the
-- subscribed property and each of its sections (the property's owners are its sections' owners).
CREATE FUNCTION event_property_watch(kind text)
RETURNS TABLE (subscription_id uuid, country text, property_id text, cadastre_id text)
LANGUAGE sql STABLE AS $$
  SELECT s.subscription_id, s.target_country, s.target_cadastre_id, s.target_cadastre_id
  FROM subscription s
  WHERE s.status = 'ACTIVE' AND s.target_kind = 'PROPERTY' AND kind = ANY (s.events)
  UNION ALL
  SELECT s.subscription_id, s.target_country, s.target_cadastre_id, sec.cadastre_id
  FROM subscription s
  JOIN section sec ON sec.country = s.target_country AND sec.property_cadastre_id = s.target_cadastre_id
  WHERE s.status = 'ACTIVE' AND s.target_kind = 'PROPERTY' AND kind = ANY (s.events)
$$;

CREATE FUNCTION event_company_watch(kind text)
RETURNS TABLE (subscription_id uuid, org_scheme text, org_id text)
LANGUAGE sql STABLE AS $$
  SELECT s.subscription_id, s.target_scheme, s.target_id
  FROM subscription s
  WHERE s.status = 'ACTIVE' AND s.target_kind = 'COMPANY' AND kind = ANY (s.events)
$$;

-- The statement that writes one outbox row per subscription and target from `changes`, a query
-- over the statement's transition tables yielding (subscription_id, target_kind, country,
-- cadastre_id, org_scheme, org_id). Repeats within the transaction (an owner deleted by one
-- statement and its successor inserted by the next) have the same id and are written once.
-- Returned as text: transition tables are visible only to the trigger function's own queries,
-- so the trigger EXECUTEs it.
CREATE FUNCTION event_enqueue_sql(kind text, changed_field text, changes text) RETURNS text
LANGUAGE sql IMMUTABLE
RETURN format(
  $sql$
  INSERT INTO event_outbox (event_id, subscription_id, event_type, target_kind, country, cadastre_id, org_scheme, org_id, changed_field, run_id)
  SELECT DISTINCT ON (event_id) event_id, subscription_id, %1$L, target_kind, country, cadastre_id, org_scheme, org_id, %2$L,
         nullif(current_setting('nordprop.run_id', true), '')
  FROM (
    SELECT c.*, md5(concat_ws('|', c.subscription_id, %1$L, c.target_kind, c.country, c.cadastre_id, c.org_scheme, c.org_id, pg_current_xact_id()))::uuid AS event_id
    FROM (SELECT DISTINCT subscription_id, target_kind, country, cadastre_id, org_scheme, org_id FROM (%3$s) ch) c
  ) e
  ON CONFLICT (event_id) DO NOTHING
  $sql$,
  kind, changed_field, changes);

-- One trigger function for owner, building_permit, tenant and property_transaction, attached
-- per statement with its transition tables, so every writer (source publish, derive, a manual
-- fix) emits without knowing about events. Arguments:
--   0 event kind, 1 changedField,
--   2 how a row concerns a company: 'holder' (its org_scheme/org_id), 'owner' (a company holding
--     title to the row's property), 'none',
--   3 bookkeeping columns an UPDATE may change without the row having changed (text[]).
-- Only rows of watched targets are looked at; with no active subscription to the kind, the
-- function returns at once (a national first load writes nothing extra).
CREATE FUNCTION event_emit() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  kind constant text := TG_ARGV[0];
  changed_field constant text := TG_ARGV[1];
  company_rule constant text := TG_ARGV[2];
  bookkeeping constant text[] := TG_ARGV[3]::text[];
  concerned text;
  changes text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM subscription s WHERE s.status = 'ACTIVE' AND kind = ANY (s.events)) THEN
    RETURN NULL;
  END IF;
  -- Rows of transition table %1$I that concern a watched target, with the row's content.
  concerned := format(
    $sql$
    SELECT w.subscription_id, 'PROPERTY' AS target_kind, w.country, w.property_id AS cadastre_id, NULL::text AS org_scheme, NULL::text AS org_id,
           to_jsonb(r) - %%2$L::text[] AS content
    FROM %%1$I r JOIN event_property_watch(%1$L) w ON w.country = r.country AND w.cadastre_id = r.cadastre_id
    %2$s
    $sql$,
    kind,
    CASE company_rule
      WHEN 'holder' THEN format(
        $sql$
        UNION ALL
        SELECT w.subscription_id, 'COMPANY', NULL, NULL, w.org_scheme, w.org_id, to_jsonb(r) - %%2$L::text[]
        FROM %%1$I r JOIN event_company_watch(%1$L) w ON w.org_scheme = r.org_scheme AND w.org_id = r.org_id
        $sql$, kind)
      WHEN 'owner' THEN format(
        $sql$
        UNION ALL
        SELECT DISTINCT w.subscription_id, 'COMPANY', NULL, NULL, w.org_scheme, w.org_id, to_jsonb(r) - %%2$L::text[]
        FROM %%1$I r
        JOIN owner o ON o.country = r.country AND o.cadastre_id = r.cadastre_id
        JOIN event_company_watch(%1$L) w ON w.org_scheme = o.org_scheme AND w.org_id = o.org_id
        $sql$, kind)
      ELSE ''
    END);
  IF TG_OP = 'INSERT' THEN
    changes := format(concerned, 'new_rows', bookkeeping);
  ELSIF TG_OP = 'DELETE' THEN
    changes := format(concerned, 'old_rows', bookkeeping);
  ELSE
    -- An UPDATE counts only where a row's content (bookkeeping aside) differs: the symmetric
    -- difference of old and new versions. Our merges never rewrite an unchanged row anyway.
    changes := format(
      'WITH n AS MATERIALIZED (%1$s), o AS MATERIALIZED (%2$s) (TABLE n EXCEPT TABLE o) UNION (TABLE o EXCEPT TABLE n)',
      format(concerned, 'new_rows', bookkeeping), format(concerned, 'old_rows', bookkeeping));
  END IF;
  EXECUTE event_enqueue_sql(kind, changed_field, changes);
  RETURN NULL;
END
$$;

-- Transaction parties: a company-targeted TRANSACTION_REGISTERED when a watched company becomes
-- a buyer or seller of a transaction. Publishers rewrite the parties of a changed transfer
-- (delete, then insert); a party removed and inserted again in one transaction is not new.
CREATE FUNCTION event_emit_party() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM event_company_watch('TRANSACTION_REGISTERED')) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    -- Rows of other, finished transactions are stale; uncommitted ones are invisible here. Rows
    -- another publish is removing right now are skipped, not waited for.
    DELETE FROM event_party_removed WHERE ctid IN (
      SELECT ctid FROM event_party_removed WHERE xact_id <> pg_current_xact_id() FOR UPDATE SKIP LOCKED);
    INSERT INTO event_party_removed (country, transaction_id, org_scheme, org_id)
    SELECT DISTINCT r.country, r.transaction_id, r.org_scheme, r.org_id
    FROM old_rows r JOIN event_company_watch('TRANSACTION_REGISTERED') w ON w.org_scheme = r.org_scheme AND w.org_id = r.org_id;
    RETURN NULL;
  END IF;
  EXECUTE event_enqueue_sql('TRANSACTION_REGISTERED', 'transactions',
    $sql$
    SELECT DISTINCT w.subscription_id, 'COMPANY' AS target_kind, NULL::text AS country, NULL::text AS cadastre_id, w.org_scheme, w.org_id
    FROM new_rows r JOIN event_company_watch('TRANSACTION_REGISTERED') w ON w.org_scheme = r.org_scheme AND w.org_id = r.org_id
    WHERE NOT EXISTS (
      SELECT 1 FROM event_party_removed x
      WHERE x.xact_id = pg_current_xact_id() AND x.country = r.country AND x.transaction_id = r.transaction_id
        AND x.org_scheme = r.org_scheme AND x.org_id = r.org_id)
    $sql$);
  RETURN NULL;
END
$$;

-- Statement-level triggers: a trigger with transition tables serves one operation each.
CREATE TRIGGER owner_events_insert AFTER INSERT ON owner REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('OWNER_CHANGED', 'owners', 'holder', '{row_hash,published_run_id,updated_at}');
CREATE TRIGGER owner_events_update AFTER UPDATE ON owner REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('OWNER_CHANGED', 'owners', 'holder', '{row_hash,published_run_id,updated_at}');
CREATE TRIGGER owner_events_delete AFTER DELETE ON owner REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('OWNER_CHANGED', 'owners', 'holder', '{row_hash,published_run_id,updated_at}');

-- A transaction is registered once: only new rows count (a corrected price is no new registration).
CREATE TRIGGER property_transaction_events_insert AFTER INSERT ON property_transaction REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('TRANSACTION_REGISTERED', 'transactions', 'none', '{}');
CREATE TRIGGER transaction_party_events_insert AFTER INSERT ON transaction_party REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit_party();
CREATE TRIGGER transaction_party_events_delete AFTER DELETE ON transaction_party REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit_party();

CREATE TRIGGER building_permit_events_insert AFTER INSERT ON building_permit REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('BUILDING_PERMIT_CHANGED', 'buildingPermits', 'owner', '{row_hash,published_run_id,updated_at}');
CREATE TRIGGER building_permit_events_update AFTER UPDATE ON building_permit REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('BUILDING_PERMIT_CHANGED', 'buildingPermits', 'owner', '{row_hash,published_run_id,updated_at}');
CREATE TRIGGER building_permit_events_delete AFTER DELETE ON building_permit REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('BUILDING_PERMIT_CHANGED', 'buildingPermits', 'owner', '{row_hash,published_run_id,updated_at}');

-- Tenants are derived nightly; when a company was last seen and how its address was matched
-- (columns the API does not serve) are bookkeeping, not a tenant change.
CREATE TRIGGER tenant_events_insert AFTER INSERT ON tenant REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('TENANT_CHANGED', 'tenants', 'holder', '{row_hash,published_run_id,updated_at,last_seen_at,computed_at,address_id,address_kind,match_rule}');
CREATE TRIGGER tenant_events_update AFTER UPDATE ON tenant REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('TENANT_CHANGED', 'tenants', 'holder', '{row_hash,published_run_id,updated_at,last_seen_at,computed_at,address_id,address_kind,match_rule}');
CREATE TRIGGER tenant_events_delete AFTER DELETE ON tenant REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION event_emit('TENANT_CHANGED', 'tenants', 'holder', '{row_hash,published_run_id,updated_at,last_seen_at,computed_at,address_id,address_kind,match_rule}');

-- Down Migration
DROP TRIGGER tenant_events_delete ON tenant;
DROP TRIGGER tenant_events_update ON tenant;
DROP TRIGGER tenant_events_insert ON tenant;
DROP TRIGGER building_permit_events_delete ON building_permit;
DROP TRIGGER building_permit_events_update ON building_permit;
DROP TRIGGER building_permit_events_insert ON building_permit;
DROP TRIGGER transaction_party_events_delete ON transaction_party;
DROP TRIGGER transaction_party_events_insert ON transaction_party;
DROP TRIGGER property_transaction_events_insert ON property_transaction;
DROP TRIGGER owner_events_delete ON owner;
DROP TRIGGER owner_events_update ON owner;
DROP TRIGGER owner_events_insert ON owner;
DROP FUNCTION event_emit_party();
DROP FUNCTION event_emit();
DROP FUNCTION event_enqueue_sql(text, text, text);
DROP FUNCTION event_company_watch(text);
DROP FUNCTION event_property_watch(text);
DROP TABLE event_party_removed;
DROP TABLE webhook_attempt;
DROP TABLE event_outbox;
