-- Up Migration

-- The sandbox rule for change events. A sandbox client sees only the demo properties
-- (api_demo_property) and what hangs off them (api/store/visibility.ts); its subscriptions must
-- hear of nothing else. The triggers of 1763900100000_events.sql fanned every change out to every
-- matching subscription, so a sandbox subscribed to a company holding a demo and a non-demo
-- property heard of the non-demo one's owners, transactions, permits and tenants. Now, for a
-- sandbox client's subscription, a changed row counts only when the property it belongs to is a
-- demo property (or a section of one), whatever the target (property or company) and table.
-- Checked when the event is written, so a property dropped from the demo set later stops emitting.

-- The property or section is a demo property or a section of one.
CREATE FUNCTION event_demo_property(p_country text, p_cadastre_id text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
RETURN EXISTS (
  SELECT 1 FROM api_demo_property d
  WHERE d.country = p_country
    AND d.cadastre_id IN (p_cadastre_id, (SELECT sec.property_cadastre_id FROM section sec WHERE sec.country = p_country AND sec.cadastre_id = p_cadastre_id)));

-- A sandbox's property subscription is watched only while its property is a demo property.
CREATE OR REPLACE FUNCTION event_property_watch(kind text)
RETURNS TABLE (subscription_id uuid, country text, property_id text, cadastre_id text)
LANGUAGE sql STABLE AS $$
  WITH watched AS (
    SELECT s.subscription_id, s.target_country, s.target_cadastre_id
    FROM subscription s JOIN api_client c ON c.client_id = s.client_id
    WHERE s.status = 'ACTIVE' AND s.target_kind = 'PROPERTY' AND kind = ANY (s.events)
      AND (NOT c.sandbox OR event_demo_property(s.target_country, s.target_cadastre_id))
  )
  SELECT w.subscription_id, w.target_country, w.target_cadastre_id, w.target_cadastre_id FROM watched w
  UNION ALL
  SELECT w.subscription_id, w.target_country, w.target_cadastre_id, sec.cadastre_id
  FROM watched w
  JOIN section sec ON sec.country = w.target_country AND sec.property_cadastre_id = w.target_cadastre_id
$$;

-- Company subscriptions, with whether the subscriber is a sandbox: the row that concerns the
-- company must then be a demo property's (event_emit, event_emit_party).
DROP FUNCTION event_company_watch(text);
CREATE FUNCTION event_company_watch(kind text)
RETURNS TABLE (subscription_id uuid, org_scheme text, org_id text, sandbox boolean)
LANGUAGE sql STABLE AS $$
  SELECT s.subscription_id, s.target_scheme, s.target_id, c.sandbox
  FROM subscription s JOIN api_client c ON c.client_id = s.client_id
  WHERE s.status = 'ACTIVE' AND s.target_kind = 'COMPANY' AND kind = ANY (s.events)
$$;

-- As in 1763900100000_events.sql, with the sandbox rule on the company-targeted rows (the
-- property-targeted ones get it from event_property_watch).
CREATE OR REPLACE FUNCTION event_emit() RETURNS trigger
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
        WHERE NOT w.sandbox OR event_demo_property(r.country, r.cadastre_id)
        $sql$, kind)
      WHEN 'owner' THEN format(
        $sql$
        UNION ALL
        SELECT DISTINCT w.subscription_id, 'COMPANY', NULL, NULL, w.org_scheme, w.org_id, to_jsonb(r) - %%2$L::text[]
        FROM %%1$I r
        JOIN owner o ON o.country = r.country AND o.cadastre_id = r.cadastre_id
        JOIN event_company_watch(%1$L) w ON w.org_scheme = o.org_scheme AND w.org_id = o.org_id
        WHERE NOT w.sandbox OR event_demo_property(r.country, r.cadastre_id)
        $sql$, kind)
      ELSE ''
    END);
  IF TG_OP = 'INSERT' THEN
    changes := format(concerned, 'new_rows', bookkeeping);
  ELSIF TG_OP = 'DELETE' THEN
    changes := format(concerned, 'old_rows', bookkeeping);
  ELSE
    changes := format(
      'WITH n AS MATERIALIZED (%1$s), o AS MATERIALIZED (%2$s) (TABLE n EXCEPT TABLE o) UNION (TABLE o EXCEPT TABLE n)',
      format(concerned, 'new_rows', bookkeeping), format(concerned, 'old_rows', bookkeeping));
  END IF;
  EXECUTE event_enqueue_sql(kind, changed_field, changes);
  RETURN NULL;
END
$$;

-- As in 1763900100000_events.sql; a party row belongs to its transaction's property, so for a
-- sandbox the transaction must be of a demo property (publishers write the transaction first).
CREATE OR REPLACE FUNCTION event_emit_party() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM event_company_watch('TRANSACTION_REGISTERED')) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
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
      AND (NOT w.sandbox OR EXISTS (
        SELECT 1 FROM property_transaction pt
        WHERE pt.country = r.country AND pt.transaction_id = r.transaction_id AND event_demo_property(pt.country, pt.cadastre_id)))
    $sql$);
  RETURN NULL;
END
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION event_emit_party() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM event_company_watch('TRANSACTION_REGISTERED')) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
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

CREATE OR REPLACE FUNCTION event_emit() RETURNS trigger
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
    changes := format(
      'WITH n AS MATERIALIZED (%1$s), o AS MATERIALIZED (%2$s) (TABLE n EXCEPT TABLE o) UNION (TABLE o EXCEPT TABLE n)',
      format(concerned, 'new_rows', bookkeeping), format(concerned, 'old_rows', bookkeeping));
  END IF;
  EXECUTE event_enqueue_sql(kind, changed_field, changes);
  RETURN NULL;
END
$$;

DROP FUNCTION event_company_watch(text);
CREATE FUNCTION event_company_watch(kind text)
RETURNS TABLE (subscription_id uuid, org_scheme text, org_id text)
LANGUAGE sql STABLE AS $$
  SELECT s.subscription_id, s.target_scheme, s.target_id
  FROM subscription s
  WHERE s.status = 'ACTIVE' AND s.target_kind = 'COMPANY' AND kind = ANY (s.events)
$$;

CREATE OR REPLACE FUNCTION event_property_watch(kind text)
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

DROP FUNCTION event_demo_property(text, text);
