-- Up Migration

-- A client's calls of the day, read on every counted request. With the day computed from
-- clock_timestamp() in the WHERE clause (a volatile function) the day was no index condition:
-- every request read the client's rows of every day kept, a cost growing with each day of use
-- (121 rows for 5 after one day here). As an InitPlan the day is computed once and the primary
-- key (client_id, day, shard) finds the day's shards alone.
CREATE OR REPLACE FUNCTION api_calls_today(p_client text) RETURNS integer
LANGUAGE sql STABLE
RETURN (SELECT coalesce(sum(calls), 0)::int FROM api_daily_calls
        WHERE client_id = p_client AND day = (SELECT (clock_timestamp() AT TIME ZONE 'UTC')::date));

-- Down Migration
CREATE OR REPLACE FUNCTION api_calls_today(p_client text) RETURNS integer
LANGUAGE sql STABLE
RETURN (SELECT coalesce(sum(calls), 0)::int FROM api_daily_calls
        WHERE client_id = p_client AND day = (clock_timestamp() AT TIME ZONE 'UTC')::date);
