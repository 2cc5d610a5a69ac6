-- Up Migration
-- Where each change feed of an incremental source continues (Brønnøysund's `oppdateringer/enheter`
-- and `oppdateringer/underenheter` have separate id counters). Written only inside a publish
-- transaction, so the feed position moves exactly when the live data does.
CREATE TABLE source_feed_cursor (
  source_id       text NOT NULL,
  feed            text NOT NULL,
  -- The last update id applied; null right after a full load, until the first increment.
  last_update_id  bigint,
  -- Where a feed without an id starts: the full load's snapshot time, less a safety margin
  -- (re-applying a change the snapshot already holds is harmless; missing one is not).
  changes_since   timestamptz,
  published_run_id text NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, feed),
  CHECK (last_update_id IS NOT NULL OR changes_since IS NOT NULL)
);

-- Down Migration
DROP TABLE source_feed_cursor;
