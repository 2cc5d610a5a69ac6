-- Up Migration

-- Inputs several derived datasets of a country read, built once and kept while the country's
-- registers are unchanged (derive/shared-inputs.ts): the property features comparables and
-- valuations both weigh. UNLOGGED tables, each labelled (its comment) with what it was built
-- from; apart from the live store and from the per-run staging tables.
CREATE SCHEMA derive_cache;

-- Down Migration
DROP SCHEMA derive_cache CASCADE;
