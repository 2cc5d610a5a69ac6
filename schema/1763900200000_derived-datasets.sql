-- Up Migration

-- The derive step (derive/, workflows/derive.ts) ledgers its runs in the same run ledger as the
-- sources: a `derive` run, one source_run row per dataset and country (`derive-no-tenants`).
ALTER TABLE run DROP CONSTRAINT run_kind_check;
ALTER TABLE run ADD CONSTRAINT run_kind_check CHECK (kind IN ('nightly', 'refresh', 'backfill', 'derive'));

-- Tenants: which register address the company's address was matched to, and by which rule, so
-- an analyst can audit a match (the API serves only the confidence).
ALTER TABLE tenant
  ADD COLUMN address_id text,
  ADD COLUMN address_kind text,
  ADD COLUMN match_rule text;
-- The tenancies of one company: change events for a company-targeted subscription, audits.
CREATE INDEX tenant_org_idx ON tenant (org_scheme, org_id);

-- Utilization: the plan the figures rest on and the plot area they were multiplied with.
ALTER TABLE utilization
  ADD COLUMN plan_municipality_code text,
  ADD COLUMN plan_id text,
  ADD COLUMN plot_area_m2 double precision;

-- Levenshtein distance for street names with a typo (tenant matching).
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

-- The street part of an address folded for matching business-register addresses to the address
-- register: as address_fold_plain (case, diacritics, the abbreviations' dots), with `aa` for `å`
-- written out and the spaces dropped ("Bjørke veien").
CREATE FUNCTION street_match_name(street text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN replace(replace(address_fold_plain(street), ' ', ''), 'aa', 'a');

-- The same with the street-type ending cut to one letter: gata/gate/gaten/gatan/gt → g,
-- veien/vegen/vei/veg/vägen/vn → v. So `STORG` (SCB), `Storg.`, `Storgt.` and `Storgatan` all
-- give `storg`; `Bjørkevn.` and `Bjorkeveien` give `bjorkev`.
CREATE FUNCTION street_match_key(street text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(regexp_replace(street_match_name(street), '(gatan|gaten|gata|gate|gt)$', 'g'), '(vagen|veien|vegen|vei|veg|vn)$', 'v');

-- Down Migration
DROP FUNCTION street_match_key(text);
DROP FUNCTION street_match_name(text);
ALTER TABLE utilization DROP COLUMN plan_municipality_code, DROP COLUMN plan_id, DROP COLUMN plot_area_m2;
DROP INDEX tenant_org_idx;
ALTER TABLE tenant DROP COLUMN address_id, DROP COLUMN address_kind, DROP COLUMN match_rule;
-- The derive runs' ledger goes with the feature (their source_run rows cascade).
DELETE FROM run WHERE kind = 'derive';
ALTER TABLE run DROP CONSTRAINT run_kind_check;
ALTER TABLE run ADD CONSTRAINT run_kind_check CHECK (kind IN ('nightly', 'refresh', 'backfill'));
