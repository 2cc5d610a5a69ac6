import { expect, it } from 'vitest';
import { LOOKUP_SQL } from '../../store/coordinate-lookup.js';
import { genericPlanReads } from '../support/explained-plans.js';
import { testDatabaseSession } from '../support/database.js';

// The tables are empty here: without these settings the planner would read them whole.
const session = testDatabaseSession(['SET enable_seqscan = off', 'SET enable_bitmapscan = off']);

// The index is asked by a box around the point first (lib/point-probe-sql.ts): asked by the point
// alone, PostGIS derives the point's box again for every index entry it compares.
it('finds the covering parcel through the parcels\' GiST index, asked by a box around the point', async () => {
  const reads = await genericPlanReads(session(), LOOKUP_SQL, ['NO', 59.91, 10.75], 'parcel');
  const byPoint = reads.filter((read) => read.includes('st_makepoint'));
  expect(byPoint).toHaveLength(1);
  expect(byPoint[0]).toMatch(/^Index Scan parcel_geom_idx .*geom && st_expand\(st_setsrid\(st_makepoint\(\$3, \$2\), 4326\)/);
});
