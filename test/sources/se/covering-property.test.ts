import { expect, it } from 'vitest';
import { coveringParcelSql } from '../../../sources/se/covering-property.js';
import { genericPlanReads } from '../../support/explained-plans.js';
import { testDatabaseSession } from '../../support/database.js';

// The tables are empty here: without these settings the planner would read them whole.
const session = testDatabaseSession(['SET enable_seqscan = off', 'SET enable_bitmapscan = off']);

// A Swedish address's or building part's link, one probe per row: the index is asked by a box
// around the point first (lib/point-probe-sql.ts), not by the point alone, whose box PostGIS
// derives again for every index entry it compares.
it('probes the parcels\' GiST index for a point\'s covering property by a box around the point', async () => {
  const reads = await genericPlanReads(session(), `SELECT ${coveringParcelSql('ST_SetSRID(ST_MakePoint($1, $2), 4326)')}`, [18.07, 59.33], 'parcel');
  expect(reads).toHaveLength(1);
  expect(reads[0]).toMatch(/^Index Scan parcel_geom_idx .*geom && st_expand\(st_setsrid\(st_makepoint\(\$1, \$2\), 4326\)/);
});
