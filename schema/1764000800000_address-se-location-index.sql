-- Up Migration

-- Swedish addresses carry no property reference: a cadastre publish re-links those under the
-- parcels it changed (sources/se/covering-property.ts). Without a spatial index every Swedish
-- address was tested against the changed parcels each night: 1.8 s of se-cadastre's 11 s night
-- at 0.05 × national, and it grows with the country however little changed. Partial, so that
-- Norway's addresses (linked by their own register) cost it nothing.
CREATE INDEX address_se_geom_idx ON address USING gist (geom) WHERE country = 'SE';

-- Down Migration
DROP INDEX address_se_geom_idx;
