-- Up Migration

-- Call counts in shards. With one row per client and day (and per subject and window), every
-- request of a busy client updated the same two rows, so concurrent requests queued on their
-- row locks: under load most of a coordinate lookup's time was spent waiting for the counter.
-- Each database session now counts into its own shard (its backend pid modulo 32) and the
-- totals are sums over the shards, so concurrent requests no longer wait for each other.
-- The daily limit stays exact: close to it, counting is serialized (api_count_call below).
ALTER TABLE api_daily_calls ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE api_daily_calls DROP CONSTRAINT api_daily_calls_pkey, ADD PRIMARY KEY (client_id, day, shard);
ALTER TABLE api_rate_window ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE api_rate_window DROP CONSTRAINT api_rate_window_pkey, ADD PRIMARY KEY (subject, window_start, shard);

CREATE FUNCTION api_calls_today(p_client text) RETURNS integer
LANGUAGE sql STABLE
RETURN (SELECT coalesce(sum(calls), 0)::int FROM api_daily_calls
        WHERE client_id = p_client AND day = (clock_timestamp() AT TIME ZONE 'UTC')::date);

-- Adds p_calls to a client's UTC day unless that would pass p_limit; returns the day's total
-- after counting, or NULL (nothing counted) when the limit would be passed.
-- Far from the limit (more than p_margin calls left), the calls go into this session's shard
-- without waiting for anyone. Within p_margin of it, callers take a per-client lock and count
-- against a fresh total, one at a time, so the limit is never passed as long as fewer than
-- p_margin counts are in flight at the moment the margin is reached.
CREATE FUNCTION api_count_daily(p_client text, p_calls integer, p_limit integer, p_margin integer)
RETURNS integer
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  today date := (clock_timestamp() AT TIME ZONE 'UTC')::date;
  total integer := api_calls_today(p_client);
BEGIN
  IF total + p_calls > p_limit - p_margin THEN
    PERFORM pg_advisory_xact_lock(hashtext('nordprop.daily-calls'), hashtext(p_client));
    total := api_calls_today(p_client); -- a new snapshot: every count committed before the lock
    IF total + p_calls > p_limit THEN
      RETURN NULL;
    END IF;
  END IF;
  INSERT INTO api_daily_calls AS c (client_id, day, shard, calls)
  VALUES (p_client, today, (pg_backend_pid() % 32)::smallint, p_calls)
  ON CONFLICT (client_id, day, shard) DO UPDATE SET calls = c.calls + p_calls;
  RETURN total + p_calls;
END $$;

-- Counts one request of p_subject in its current window of p_window_s seconds and, for a client
-- (p_client not NULL) within the burst limit, p_calls calls in its day. One round trip.
CREATE FUNCTION api_count_call(p_subject text, p_window_s integer, p_burst_limit integer,
                               p_client text, p_daily_limit integer, p_calls integer, p_margin integer,
                               OUT window_calls integer, OUT reset_s integer, OUT daily_calls integer, OUT daily_reset_s integer)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  now_utc timestamp := clock_timestamp() AT TIME ZONE 'UTC';
  started timestamptz := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_window_s) * p_window_s);
  my_shard smallint := (pg_backend_pid() % 32)::smallint;
BEGIN
  -- A call count is not worth an fsync per request: a crash loses at most the last fraction of
  -- a second of counts (wal_writer_delay).
  PERFORM set_config('synchronous_commit', 'off', true);
  INSERT INTO api_rate_window AS r (subject, window_start, shard, calls)
  VALUES (p_subject, started, my_shard, 1)
  ON CONFLICT (subject, window_start, shard) DO UPDATE SET calls = r.calls + 1;
  SELECT sum(calls)::int INTO window_calls FROM api_rate_window WHERE subject = p_subject AND window_start = started;
  reset_s := greatest(1, ceil(extract(epoch FROM started + make_interval(secs => p_window_s) - clock_timestamp())))::int;
  daily_reset_s := ceil(extract(epoch FROM date_trunc('day', now_utc) + interval '1 day' - now_utc))::int;
  IF p_client IS NOT NULL AND window_calls <= p_burst_limit THEN
    daily_calls := api_count_daily(p_client, p_calls, p_daily_limit, p_margin);
  END IF;
END $$;

-- Down Migration
DROP FUNCTION api_count_call(text, integer, integer, text, integer, integer, integer);
DROP FUNCTION api_count_daily(text, integer, integer, integer);
DROP FUNCTION api_calls_today(text);
DELETE FROM api_rate_window;
ALTER TABLE api_rate_window DROP CONSTRAINT api_rate_window_pkey, DROP COLUMN shard, ADD PRIMARY KEY (subject, window_start);
CREATE TEMP TABLE daily_totals AS SELECT client_id, day, sum(calls)::int AS calls FROM api_daily_calls GROUP BY client_id, day;
DELETE FROM api_daily_calls;
ALTER TABLE api_daily_calls DROP CONSTRAINT api_daily_calls_pkey, DROP COLUMN shard, ADD PRIMARY KEY (client_id, day);
INSERT INTO api_daily_calls (client_id, day, calls) SELECT client_id, day, calls FROM daily_totals;
