-- Up Migration

-- Call counts in shards. With one row per client and day (and per subject and window), every
-- request of a busy client updated the same two rows, so concurrent requests queued on their
-- row locks. Each database session now counts into its own shard (its backend pid modulo 32)
-- and the totals are sums over the shards. The API also counts the calls of many concurrent
-- requests in one statement (api/limits/call-batcher.ts), so a count costs a fraction of a
-- write per request. The daily limit stays exact: close to it, counting is serialized.
ALTER TABLE api_daily_calls ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE api_daily_calls DROP CONSTRAINT api_daily_calls_pkey, ADD PRIMARY KEY (client_id, day, shard);
ALTER TABLE api_rate_window ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE api_rate_window DROP CONSTRAINT api_rate_window_pkey, ADD PRIMARY KEY (subject, window_start, shard);

CREATE FUNCTION api_calls_today(p_client text) RETURNS integer
LANGUAGE sql STABLE
RETURN (SELECT coalesce(sum(calls), 0)::int FROM api_daily_calls
        WHERE client_id = p_client AND day = (clock_timestamp() AT TIME ZONE 'UTC')::date);

-- Charges p_calls calls to a client's UTC day without passing p_limit: all of them or none, or
-- with p_partial as many as fit. Returns the number charged and the day's total after.
-- Far from the limit (more than p_margin calls left), the calls go into this session's shard
-- without waiting for anyone. Within p_margin of it, callers take a per-client lock and count
-- against a fresh total, one at a time, so the limit is never passed as long as fewer than
-- p_margin calls are in flight at the moment the margin is reached.
CREATE FUNCTION api_charge_daily(p_client text, p_calls integer, p_limit integer, p_margin integer, p_partial boolean,
                                 OUT charged integer, OUT total integer)
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  total := api_calls_today(p_client);
  IF total + p_calls > p_limit - p_margin THEN
    PERFORM pg_advisory_xact_lock(hashtext('nordprop.daily-calls'), hashtext(p_client));
    total := api_calls_today(p_client); -- a new snapshot: every count committed before the lock
  END IF;
  charged := CASE WHEN total + p_calls <= p_limit THEN p_calls
                  WHEN p_partial THEN greatest(0, p_limit - total)
                  ELSE 0 END;
  IF charged > 0 THEN
    INSERT INTO api_daily_calls AS c (client_id, day, shard, calls)
    VALUES (p_client, (clock_timestamp() AT TIME ZONE 'UTC')::date, (pg_backend_pid() % 32)::smallint, charged)
    ON CONFLICT (client_id, day, shard) DO UPDATE SET calls = c.calls + charged;
    total := total + charged;
  END IF;
END $$;

-- Counts p_requests requests of p_subject (`client:<id>` or `ip:<address>`) in its current
-- window of p_window_s seconds. Those within the burst limit are `admitted`; for a client
-- (p_client not NULL) each admitted request is one call of its day, charged as far as the daily
-- limit allows (`daily_charged`, the first ones in order). Requests over the burst limit count
-- in the window but not against the day.
CREATE FUNCTION api_count_requests(p_subject text, p_window_s integer, p_burst_limit integer, p_requests integer,
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
  -- A call count is not worth an fsync: a crash loses at most the last fraction of a second of
  -- counts (wal_writer_delay).
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

-- Down Migration
DROP FUNCTION api_count_requests(text, integer, integer, integer, text, integer, integer);
DROP FUNCTION api_charge_daily(text, integer, integer, integer, boolean);
DROP FUNCTION api_calls_today(text);
DELETE FROM api_rate_window;
ALTER TABLE api_rate_window DROP CONSTRAINT api_rate_window_pkey, DROP COLUMN shard, ADD PRIMARY KEY (subject, window_start);
CREATE TEMP TABLE daily_totals AS SELECT client_id, day, sum(calls)::int AS calls FROM api_daily_calls GROUP BY client_id, day;
DELETE FROM api_daily_calls;
ALTER TABLE api_daily_calls DROP CONSTRAINT api_daily_calls_pkey, DROP COLUMN shard, ADD PRIMARY KEY (client_id, day);
INSERT INTO api_daily_calls (client_id, day, calls) SELECT client_id, day, calls FROM daily_totals;
