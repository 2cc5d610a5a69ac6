-- Up Migration
CREATE EXTENSION IF NOT EXISTS postgis;

-- Per-run UNLOGGED staging tables live here, apart from the live store.
CREATE SCHEMA IF NOT EXISTS staging;

-- One row per nightly refresh, manual refresh or backfill.
CREATE TABLE run (
  run_id       text PRIMARY KEY,
  kind         text NOT NULL CHECK (kind IN ('nightly', 'refresh', 'backfill')),
  workflow_id  text,
  sources      text[] NOT NULL,
  forced       boolean NOT NULL DEFAULT false,
  outcome      text NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'succeeded', 'partial', 'failed')),
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX run_started_idx ON run (started_at DESC);

-- One row per source within a run: what came in, what happened to it, how long each phase took.
CREATE TABLE source_run (
  run_id         text NOT NULL REFERENCES run ON DELETE CASCADE,
  source_id      text NOT NULL,
  country        text NOT NULL,
  input          text,
  artifact_path  text,
  input_sha256   text,
  input_bytes    bigint,
  etag           text,
  last_modified  text,
  rows_read      bigint NOT NULL DEFAULT 0,
  rows_staged    bigint NOT NULL DEFAULT 0,
  rows_rejected  bigint NOT NULL DEFAULT 0,
  rows_repaired  bigint NOT NULL DEFAULT 0,
  inserted       bigint NOT NULL DEFAULT 0,
  updated        bigint NOT NULL DEFAULT 0,
  deleted        bigint NOT NULL DEFAULT 0,
  details        jsonb NOT NULL DEFAULT '{}',
  durations_ms   jsonb NOT NULL DEFAULT '{}',
  outcome        text NOT NULL DEFAULT 'running'
                 CHECK (outcome IN ('running', 'unchanged', 'published', 'failed')),
  error          text,
  staging_table  text,
  started_at     timestamptz NOT NULL DEFAULT now(),
  finished_at    timestamptz,
  PRIMARY KEY (run_id, source_id)
);
CREATE INDEX source_run_latest_idx ON source_run (source_id, finished_at DESC);

-- Every parsed row that did not reach the live tables as read: rejected, or repaired on the way.
CREATE TABLE source_reject (
  id           bigserial PRIMARY KEY,
  run_id       text NOT NULL,
  source_id    text NOT NULL,
  position     bigint,
  disposition  text NOT NULL DEFAULT 'rejected' CHECK (disposition IN ('rejected', 'repaired')),
  reason       text NOT NULL,
  raw          text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX source_reject_run_idx ON source_reject (run_id, source_id, position);

-- Down Migration
DROP TABLE source_reject;
DROP TABLE source_run;
DROP TABLE run;
DROP SCHEMA staging CASCADE;
