-- Up Migration

-- Client lifecycle (`nordprop clients disable|enable|delete|rotate-secret`). A disabled client
-- keeps its row (and its subscriptions and counts) but no token of it resolves and the token
-- endpoint refuses it; rotating the secret replaces the hash and drops every token issued so far.
-- A deleted client loses its secret, tokens, subscriptions and stored responses; its row stays
-- as a tombstone (deleted_at): a request of it still in flight when it is deleted is counted
-- against a row that exists, instead of failing the batch of counts it is in on a foreign key.
ALTER TABLE api_client ADD COLUMN disabled_at timestamptz, ADD COLUMN secret_rotated_at timestamptz, ADD COLUMN deleted_at timestamptz;

-- Every revocation (disable, delete, secret rotation), in the order the store's clock saw them.
-- Each API process caches the tokens it has resolved; it reads the revocations since its last
-- look at most every second before trusting its cache (api/auth/tokens.ts), so a revoked
-- client's tokens stop working on every process within about a second. No foreign key: a
-- deleted client's row is gone, its revocation stays (it is also the audit trail).
CREATE TABLE api_client_revocation (
  revoked_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  client_id   text NOT NULL,
  reason      text NOT NULL CHECK (reason IN ('DISABLED', 'DELETED', 'SECRET_ROTATED'))
);
CREATE INDEX api_client_revocation_at_idx ON api_client_revocation (revoked_at);

-- Token requests per client and fixed window, counted before the secret is checked: a request
-- that would pass the limit is refused without running scrypt. A verified request gives its
-- attempt back (api_token_attempt_passed), so what is left counts failures and the attempts in
-- flight. UNLOGGED like the rate windows: a crash forgets at most one window's failures.
CREATE UNLOGGED TABLE api_token_attempt (
  client_id     text NOT NULL,
  window_start  timestamptz NOT NULL,
  attempts      integer NOT NULL,
  PRIMARY KEY (client_id, window_start)
);

-- Takes one attempt of p_client in the current window of p_window_s seconds. The row's lock
-- makes the count exact across sessions and API processes: of any number of concurrent
-- requests, exactly the first p_limit (less those already failed) are admitted.
CREATE FUNCTION api_token_attempt(p_client text, p_limit integer, p_window_s integer,
                                  OUT admitted boolean, OUT retry_s integer, OUT attempt_window timestamptz)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  started timestamptz := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_window_s) * p_window_s);
  taken integer;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  INSERT INTO api_token_attempt AS a (client_id, window_start, attempts) VALUES (p_client, started, 1)
  ON CONFLICT ON CONSTRAINT api_token_attempt_pkey DO UPDATE SET attempts = a.attempts + 1
  RETURNING a.attempts INTO taken;
  admitted := taken <= p_limit;
  retry_s := greatest(1, ceil(extract(epoch FROM started + make_interval(secs => p_window_s) - clock_timestamp())))::int;
  attempt_window := started;
  -- Old windows are useless; sweep some now and then instead of running a janitor.
  IF random() < 0.01 THEN
    DELETE FROM api_token_attempt t WHERE t.window_start < clock_timestamp() - interval '1 hour';
  END IF;
END $$;

-- A verified token request gives its attempt back: only failures (and attempts in flight) count.
CREATE FUNCTION api_token_attempt_passed(p_client text, p_window_start timestamptz) RETURNS void
LANGUAGE sql VOLATILE
BEGIN ATOMIC
  UPDATE api_token_attempt SET attempts = attempts - 1 WHERE client_id = p_client AND window_start = p_window_start AND attempts > 0;
END;

-- The burst window, exact. Each session counted into its own shard and summed the shards it
-- could see, and a concurrent session's count is not visible until it commits: 30 parallel
-- requests at 10 a second let 11 to 13 through. Now, within p_margin of the burst limit (always,
-- for limits up to p_margin), a subject's counts take a per-subject lock and sum the window
-- again under it, so each sees every count committed before it and the limit holds exactly
-- (as the daily limit does). A window already full is refused without the lock. Far from the
-- limit (a limit of thousands a second), counting stays lock-free as before.
CREATE OR REPLACE FUNCTION api_count_requests(p_subject text, p_window_s integer, p_burst_limit integer, p_requests integer,
                                              p_client text, p_daily_limit integer, p_margin integer,
                                              OUT window_calls integer, OUT reset_s integer, OUT admitted integer,
                                              OUT daily_charged integer, OUT daily_calls integer, OUT daily_reset_s integer)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  now_utc timestamp := clock_timestamp() AT TIME ZONE 'UTC';
  started timestamptz := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_window_s) * p_window_s);
  my_shard smallint := (pg_backend_pid() % 32)::smallint;
  counted integer;
BEGIN
  -- A call count is not worth an fsync: a crash loses at most the last fraction of a second of
  -- counts (wal_writer_delay).
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT coalesce(sum(calls), 0)::int INTO counted FROM api_rate_window WHERE subject = p_subject AND window_start = started;
  IF counted < p_burst_limit AND counted + p_requests > p_burst_limit - p_margin THEN
    -- Held until this statement commits, so the next holder's sum (a new snapshot) includes this count.
    PERFORM pg_advisory_xact_lock(hashtext('nordprop.rate-window'), hashtext(p_subject));
    SELECT coalesce(sum(calls), 0)::int INTO counted FROM api_rate_window WHERE subject = p_subject AND window_start = started;
  END IF;
  INSERT INTO api_rate_window AS r (subject, window_start, shard, calls)
  VALUES (p_subject, started, my_shard, p_requests)
  ON CONFLICT (subject, window_start, shard) DO UPDATE SET calls = r.calls + p_requests;
  window_calls := counted + p_requests;
  admitted := least(p_requests, greatest(0, p_burst_limit - counted));
  reset_s := greatest(1, ceil(extract(epoch FROM started + make_interval(secs => p_window_s) - clock_timestamp())))::int;
  daily_reset_s := ceil(extract(epoch FROM date_trunc('day', now_utc) + interval '1 day' - now_utc))::int;
  daily_charged := 0;
  IF p_client IS NOT NULL AND admitted > 0 THEN
    SELECT c.charged, c.total INTO daily_charged, daily_calls FROM api_charge_daily(p_client, admitted, p_daily_limit, p_margin, true) c;
  ELSIF p_client IS NOT NULL THEN
    daily_calls := api_calls_today(p_client);
  END IF;
END $$;

-- Down Migration
CREATE OR REPLACE FUNCTION api_count_requests(p_subject text, p_window_s integer, p_burst_limit integer, p_requests integer,
                                              p_client text, p_daily_limit integer, p_margin integer,
                                              OUT window_calls integer, OUT reset_s integer, OUT admitted integer,
                                              OUT daily_charged integer, OUT daily_calls integer, OUT daily_reset_s integer)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  now_utc timestamp := clock_timestamp() AT TIME ZONE 'UTC';
  started timestamptz := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_window_s) * p_window_s);
  my_shard smallint := (pg_backend_pid() % 32)::smallint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  INSERT INTO api_rate_window AS r (subject, window_start, shard, calls)
  VALUES (p_subject, started, my_shard, p_requests)
  ON CONFLICT (subject, window_start, shard) DO UPDATE SET calls = r.calls + p_requests;
  SELECT sum(calls)::int INTO window_calls FROM api_rate_window WHERE subject = p_subject AND window_start = started;
  admitted := least(p_requests, greatest(0, p_burst_limit - (window_calls - p_requests)));
  reset_s := greatest(1, ceil(extract(epoch FROM started + make_interval(secs => p_window_s) - clock_timestamp())))::int;
  daily_reset_s := ceil(extract(epoch FROM date_trunc('day', now_utc) + interval '1 day' - now_utc))::int;
  daily_charged := 0;
  IF p_client IS NOT NULL AND admitted > 0 THEN
    SELECT c.charged, c.total INTO daily_charged, daily_calls FROM api_charge_daily(p_client, admitted, p_daily_limit, p_margin, true) c;
  ELSIF p_client IS NOT NULL THEN
    daily_calls := api_calls_today(p_client);
  END IF;
END $$;
DROP FUNCTION api_token_attempt_passed(text, timestamptz);
DROP FUNCTION api_token_attempt(text, integer, integer);
DROP TABLE api_token_attempt;
DROP TABLE api_client_revocation;
DELETE FROM api_client WHERE deleted_at IS NOT NULL;
ALTER TABLE api_client DROP COLUMN deleted_at, DROP COLUMN secret_rotated_at, DROP COLUMN disabled_at;
