import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool, withTransaction } from '../../lib/db.js';
import { mergeDerived } from '../../derive/publish.js';
import type { DerivedDataset } from '../../derive/dataset.js';
import type { Country } from '../../lib/domain/country.js';
import { createTestDatabase } from '../support/database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

// A dataset over the utilization table, with its real key and value columns.
const dataset: DerivedDataset = {
  id: 'utilization',
  title: 'test',
  liveTable: 'utilization',
  keyColumns: ['cadastre_id'],
  valueColumns: ['allowed_bya', 'allowed_bra_m2', 'built_bra_m2', 'remaining_bra_m2', 'basis'],
  compute: async () => undefined,
};

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

type Row = [country: string, cadastreId: string, bya: number | null, basis: string | null];

async function publish(rows: Row[], country: Country) {
  return withTransaction(pool, async (client) => {
    await client.query(`CREATE TEMP TABLE s (LIKE utilization INCLUDING DEFAULTS) ON COMMIT DROP`);
    for (const [c, id, bya, basis] of rows) {
      await client.query(`INSERT INTO s (country, cadastre_id, allowed_bya, basis) VALUES ($1, $2, $3, $4)`, [c, id, bya, basis]);
    }
    return mergeDerived(client, dataset, 's', country);
  });
}

const live = async () =>
  (await pool.query(`SELECT country, cadastre_id, allowed_bya, basis, computed_at FROM utilization ORDER BY country, cadastre_id`)).rows;

describe('mergeDerived', () => {
  it('inserts, updates only rows whose values differ (NULLs compared), deletes keys gone, within the one country', async () => {
    await pool.query(`INSERT INTO utilization (country, cadastre_id, allowed_bya, basis) VALUES ('SE', '0180_A_1', 10, 'kept')`);
    expect(await publish([['NO', '1', 20, 'a'], ['NO', '2', null, 'b'], ['NO', '3', 30, null]], 'NO')).toEqual({ inserted: 3, updated: 0, deleted: 0 });
    const first = await live();

    // The same result again writes nothing: not even the bookkeeping column moves.
    expect(await publish([['NO', '1', 20, 'a'], ['NO', '2', null, 'b'], ['NO', '3', 30, null]], 'NO')).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect(await live()).toEqual(first);

    // NULL → value and value → NULL are changes; key 3 is gone, key 4 new; Sweden untouched.
    expect(await publish([['NO', '1', null, 'a'], ['NO', '2', 25, 'b'], ['NO', '4', 40, 'd']], 'NO')).toEqual({ inserted: 1, updated: 2, deleted: 1 });
    const after = await live();
    expect(after.map((r) => [r.country, r.cadastre_id, r.allowed_bya, r.basis])).toEqual([
      ['NO', '1', null, 'a'],
      ['NO', '2', 25, 'b'],
      ['NO', '4', 40, 'd'],
      ['SE', '0180_A_1', 10, 'kept'],
    ]);
    // Updated rows get a new computed_at; the bookkeeping column is not a value.
    expect(after[0].computed_at.getTime()).toBeGreaterThanOrEqual(first[0].computed_at.getTime());
  });

  it('refuses a dataset whose columns the live table lacks', async () => {
    await expect(
      withTransaction(pool, (client) => mergeDerived(client, { ...dataset, valueColumns: ['allowed_bya', 'no_such_column'] }, 'utilization', 'NO')),
    ).rejects.toThrow(/utilization has no column no_such_column/);
  });
});
