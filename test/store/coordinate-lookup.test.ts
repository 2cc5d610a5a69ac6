import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOOKUP_SQL } from '../../store/coordinate-lookup.js';
import { genericPlanReads } from '../support/explained-plans.js';
import { createTestDatabase } from '../support/database.js';

let db: { url: string; drop: () => Promise<void> };
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // The tables are empty here: without these the planner would read them whole.
  await client.query('SET enable_seqscan = off');
  await client.query('SET enable_bitmapscan = off');
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

// The index is asked by a box around the point first (lib/point-probe-sql.ts): asked by the point
// alone, PostGIS derives the point's box again for every index entry it compares.
it('finds the covering parcel through the parcels\' GiST index, asked by a box around the point', async () => {
  const reads = await genericPlanReads(client, LOOKUP_SQL, ['NO', 59.91, 10.75], 'parcel');
  expect(reads.length).toBeGreaterThan(0);
  const byPoint = reads.filter((read) => read.includes('st_makepoint'));
  expect(byPoint).toHaveLength(1);
  expect(byPoint[0]).toMatch(/^Index Scan parcel_geom_idx .*geom && st_expand\(st_setsrid\(st_makepoint\(\$3, \$2\), 4326\)/);
});
