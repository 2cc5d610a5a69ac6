-- Up Migration

-- No statement filters property_comparables by what its arrays hold (the API reads a property's
-- row by its key; comparable_transaction unnests it), so the planner never uses their element
-- statistics, and gathering them was most of the ANALYZE the derive runs after every change of
-- the table (at 0.05 × national, 0.80 s of it, 0.28-0.31 s without; docs/derived/comparables.md).
ALTER TABLE property_comparables
  ALTER COLUMN transaction_ids SET STATISTICS 0,
  ALTER COLUMN distances_m SET STATISTICS 0,
  ALTER COLUMN prices_per_m2 SET STATISTICS 0,
  ALTER COLUMN similarities SET STATISTICS 0;

-- Down Migration
ALTER TABLE property_comparables
  ALTER COLUMN transaction_ids SET STATISTICS -1,
  ALTER COLUMN distances_m SET STATISTICS -1,
  ALTER COLUMN prices_per_m2 SET STATISTICS -1,
  ALTER COLUMN similarities SET STATISTICS -1;
