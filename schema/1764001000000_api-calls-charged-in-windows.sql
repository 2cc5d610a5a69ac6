-- Up Migration

-- A client's calls are charged to its day in its rate-window row, not in a day row per call.
--
-- Every counted call updated two rows: its window row (the burst limit) and its day row. Each
-- update leaves a dead row version, and PostgreSQL prunes those only once no snapshot anywhere on
-- the server may still see them, so while any long transaction ran (a nightly publish, another
-- database's load) the day row's chain grew by one version per call, for the whole day, and every
-- count walked it: the count statement fell from 1,976 to 593 counts/s over five 10 s runs with a
-- minute-long transaction open (docs/api.md). A window row starts afresh every window, so its
-- chain stays as short as a window's calls.
--
-- Now a call far from the daily limit adds to `charged` of the window row it already writes, and
-- the day's total is the client's day rows plus the calls charged in its windows not yet folded,
-- read in one statement (one snapshot). About every two seconds a counting session folds the
-- closed windows into the day (api_fold_calls): it adds their charged calls to the day row of
-- shard 32 and moves the client's fold mark past them, in one transaction. The day
-- row and the mark get a version per fold instead of per call, and a read touches only the rows
-- after the mark: the current window or two, whose chains stay as short as a window's calls.
--
-- A count of a client holds the client's fold lock shared from its read to its commit, and a fold
-- takes it exclusively, without waiting. So no fold commits between a count's read and its
-- write: a count whose window the last fold already passed (it waited long) charges the day row.
--
-- Within p_margin of the daily limit, calls are charged in the day rows under the client's lock,
-- as before, so the limit still holds exactly (api_charge_daily).
--
-- api_rate_window is UNLOGGED: a PostgreSQL crash forgets the calls charged in windows not yet
-- folded (about the last two seconds of each client's calls), as it forgets the windows.
ALTER TABLE api_rate_window ADD COLUMN charged integer NOT NULL DEFAULT 0;

-- Per client: every window that started before folded_before has been added to the day rows.
CREATE TABLE api_call_fold (
  client_id      text PRIMARY KEY REFERENCES api_client ON DELETE CASCADE,
  folded_before  timestamptz NOT NULL
) WITH (fillfactor = 50);

-- A client's calls of today: its day rows and the calls charged in its windows of today not yet
-- folded. A client's rate-limit subject is `client:<id>` (api/auth/guard.ts); a window belongs
-- to the day it starts in, and api_count_requests charges a window only when it starts today.
CREATE OR REPLACE FUNCTION api_calls_today(p_client text) RETURNS integer
LANGUAGE plpgsql STABLE
AS $$
DECLARE
  today date := (clock_timestamp() AT TIME ZONE 'UTC')::date;
BEGIN
  -- One expression, one snapshot: a fold that commits in between cannot count a call twice or not at all.
  RETURN (SELECT coalesce(sum(d.calls), 0)::int FROM api_daily_calls d WHERE d.client_id = p_client AND d.day = today)
       + (SELECT coalesce(sum(w.charged), 0)::int FROM api_rate_window w
          WHERE w.subject = 'client:' || p_client
            AND w.window_start >= greatest(today::timestamp AT TIME ZONE 'UTC',
                                           (SELECT f.folded_before FROM api_call_fold f WHERE f.client_id = p_client)));
END $$;

-- Adds the calls charged in p_client's windows from its fold mark up to p_before to its day rows
-- and moves the mark to p_before. Does nothing while another count of the client holds its fold
-- lock (it is tried again on a later count). The folded windows stay for the sweep.
CREATE FUNCTION api_fold_calls(p_client text, p_before timestamptz) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  folded_before timestamptz;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('nordprop.fold-calls'), hashtext(p_client)) THEN
    RETURN;
  END IF;
  folded_before := coalesce((SELECT f.folded_before FROM api_call_fold f WHERE f.client_id = p_client), '-infinity');
  IF folded_before >= p_before THEN
    RETURN;
  END IF;
  -- Shard 32: the folds' own day row (the sessions' shards are 0 to 31).
  INSERT INTO api_daily_calls AS c (client_id, day, shard, calls)
  SELECT p_client, (w.window_start AT TIME ZONE 'UTC')::date, 32, sum(w.charged)::int
  FROM api_rate_window w
  WHERE w.subject = 'client:' || p_client AND w.window_start >= folded_before AND w.window_start < p_before
  GROUP BY 2 HAVING sum(w.charged) > 0
  ON CONFLICT (client_id, day, shard) DO UPDATE SET calls = c.calls + excluded.calls;
  INSERT INTO api_call_fold (client_id, folded_before) VALUES (p_client, p_before)
  ON CONFLICT (client_id) DO UPDATE SET folded_before = excluded.folded_before;
END $$;

-- Deletes windows older than ten minutes, except those holding calls not yet folded into a day.
CREATE FUNCTION api_sweep_rate_windows() RETURNS void
LANGUAGE sql VOLATILE
BEGIN ATOMIC
  DELETE FROM api_rate_window w
  WHERE w.window_start < now() - interval '10 minutes'
    -- Only a client's windows (`client:<id>`) hold charged calls; its fold mark is found by its key.
    AND (w.charged = 0 OR w.window_start < (SELECT f.folded_before FROM api_call_fold f WHERE f.client_id = substr(w.subject, 8)));
END;

-- As before (schema/1763901500000_api-client-lifecycle.sql), except where a client's admitted
-- calls are charged: in the window row this count writes anyway, unless the day is within
-- p_margin of its limit (then api_charge_daily, exactly, as before). A client's burst count and
-- its day's total come from one read.
CREATE OR REPLACE FUNCTION api_count_requests(p_subject text, p_window_s integer, p_burst_limit integer, p_requests integer,
                                              p_client text, p_daily_limit integer, p_margin integer,
                                              OUT window_calls integer, OUT reset_s integer, OUT admitted integer,
                                              OUT daily_charged integer, OUT daily_calls integer, OUT daily_reset_s integer)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  now_utc timestamp := clock_timestamp() AT TIME ZONE 'UTC';
  today date := now_utc::date;
  today_start timestamptz := now_utc::date::timestamp AT TIME ZONE 'UTC';
  started timestamptz := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_window_s) * p_window_s);
  my_shard smallint := (pg_backend_pid() % 32)::smallint;
  -- Only a client counted under its own subject keeps its calls in windows api_calls_today reads.
  windows_hold_day boolean := p_client IS NOT NULL AND p_subject = 'client:' || p_client;
  counted integer;
  calls_today integer;
  folded_before timestamptz;
  charged_here integer := 0;
BEGIN
  -- A call count is not worth an fsync: a crash loses at most the last fraction of a second of
  -- counts (wal_writer_delay).
  PERFORM set_config('synchronous_commit', 'off', true);
  IF windows_hold_day THEN
    -- Until commit: no fold passes this count's window between its read and its write.
    PERFORM pg_advisory_xact_lock_shared(hashtext('nordprop.fold-calls'), hashtext(p_client));
    folded_before := coalesce((SELECT f.folded_before FROM api_call_fold f WHERE f.client_id = p_client), '-infinity');
  END IF;
  FOR pass IN 1..2 LOOP
    IF windows_hold_day THEN
      SELECT coalesce(sum(w.calls) FILTER (WHERE w.window_start = started), 0)::int,
             coalesce(sum(w.charged) FILTER (WHERE w.window_start >= greatest(today_start, folded_before)), 0)::int
               + (SELECT coalesce(sum(d.calls), 0)::int FROM api_daily_calls d WHERE d.client_id = p_client AND d.day = today)
        INTO counted, calls_today
        FROM api_rate_window w WHERE w.subject = p_subject AND w.window_start >= least(started, folded_before);
    ELSE
      SELECT coalesce(sum(calls), 0)::int INTO counted FROM api_rate_window WHERE subject = p_subject AND window_start = started;
    END IF;
    EXIT WHEN pass = 2 OR NOT (counted < p_burst_limit AND counted + p_requests > p_burst_limit - p_margin);
    -- Held until this statement commits, so the next holder's sum (a new snapshot) includes this count.
    PERFORM pg_advisory_xact_lock(hashtext('nordprop.rate-window'), hashtext(p_subject));
  END LOOP;
  admitted := least(p_requests, greatest(0, p_burst_limit - counted));
  window_calls := counted + p_requests;
  daily_charged := 0;
  IF windows_hold_day AND admitted > 0 AND started >= greatest(today_start, folded_before)
     AND calls_today + admitted <= p_daily_limit - p_margin THEN
    charged_here := admitted;
    daily_charged := admitted;
    daily_calls := calls_today + admitted;
  END IF;
  INSERT INTO api_rate_window AS r (subject, window_start, shard, calls, charged)
  VALUES (p_subject, started, my_shard, p_requests, charged_here)
  ON CONFLICT (subject, window_start, shard) DO UPDATE SET calls = r.calls + p_requests, charged = r.charged + charged_here;
  IF p_client IS NOT NULL AND admitted > 0 AND charged_here = 0 THEN
    SELECT c.charged, c.total INTO daily_charged, daily_calls FROM api_charge_daily(p_client, admitted, p_daily_limit, p_margin, true) c;
  ELSIF p_client IS NOT NULL AND admitted = 0 THEN
    daily_calls := coalesce(calls_today, api_calls_today(p_client));
  END IF;
  IF windows_hold_day AND folded_before < started - interval '1 second' THEN
    PERFORM api_fold_calls(p_client, started);
  END IF;
  reset_s := greatest(1, ceil(extract(epoch FROM started + make_interval(secs => p_window_s) - clock_timestamp())))::int;
  daily_reset_s := ceil(extract(epoch FROM date_trunc('day', now_utc) + interval '1 day' - now_utc))::int;
END $$;

-- Down Migration
INSERT INTO api_daily_calls AS c (client_id, day, shard, calls)
SELECT substr(w.subject, 8), (w.window_start AT TIME ZONE 'UTC')::date, 32, sum(w.charged)::int
FROM api_rate_window w JOIN api_client a ON a.client_id = substr(w.subject, 8)
LEFT JOIN api_call_fold f ON f.client_id = a.client_id
WHERE w.subject LIKE 'client:%' AND w.charged > 0 AND w.window_start >= coalesce(f.folded_before, '-infinity')
GROUP BY 1, 2
ON CONFLICT (client_id, day, shard) DO UPDATE SET calls = c.calls + excluded.calls;
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
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT coalesce(sum(calls), 0)::int INTO counted FROM api_rate_window WHERE subject = p_subject AND window_start = started;
  IF counted < p_burst_limit AND counted + p_requests > p_burst_limit - p_margin THEN
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
DROP FUNCTION api_sweep_rate_windows();
DROP FUNCTION api_fold_calls(text, timestamptz);
DROP TABLE api_call_fold;
CREATE OR REPLACE FUNCTION api_calls_today(p_client text) RETURNS integer
LANGUAGE plpgsql STABLE
AS $$
DECLARE
  today date := (clock_timestamp() AT TIME ZONE 'UTC')::date;
BEGIN
  RETURN (SELECT coalesce(sum(calls), 0)::int FROM api_daily_calls WHERE client_id = p_client AND day = today);
END $$;
ALTER TABLE api_rate_window DROP COLUMN charged;
