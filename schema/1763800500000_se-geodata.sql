-- Up Migration

-- Swedish addresses carry the register's status (`Gällande`, `Reserverad`); Norway's register
-- has none (NULL).
ALTER TABLE address ADD COLUMN status text;

-- Swedish buildings state up to five purposes (`andamal1..5`, `objekttyp;ändamål`), in order.
ALTER TABLE building ADD COLUMN purposes text[];

-- Down Migration
ALTER TABLE building DROP COLUMN purposes;
ALTER TABLE address DROP COLUMN status;
