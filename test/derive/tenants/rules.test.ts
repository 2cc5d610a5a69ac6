import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { MATCH_RULES } from '../../../derive/tenants/rules.js';
import { createTestDatabase } from '../../support/database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = getPool(database.url);
});
afterAll(async () => {
  await closePools();
  await database?.drop();
});

const key = async (street: string) => (await pool.query(`SELECT street_match_key($1) AS k`, [street])).rows[0].k;

describe('street names as the matching compares them', () => {
  it('agree across the spellings registers use', async () => {
    const same: string[][] = [
      ['Storgata', 'Storgt.', 'STORGATA', 'storgate', 'Storg.', 'Stor gata'],
      ['Kungsvägen', 'KUNGSV', 'Kungsv.', 'kungsvagen'],
      ['Storgatan', 'STORG', 'Storg.'],
      ['Bjørkeveien', 'Bjørkevn.', 'Bjorkeveien', 'BJØRKEVEGEN', 'Bjørkevei'],
      ['Skoleåsen', 'Skoleaasen', 'SKOLEASEN'],
      ['Ærfuglbakken', 'AErfuglbakken', 'Aerfuglbakken'],
    ];
    for (const spellings of same) {
      const keys = await Promise.all(spellings.map(key));
      expect(new Set(keys).size, spellings.join(' / ')).toBe(1);
    }
  });

  it('keep different streets apart', async () => {
    const different = [['Storgata', 'Storveien'], ['Kirkegata', 'Kirkebakken'], ['Åsveien', 'Åsgata'], ['Furulia', 'Furuli']];
    for (const [a, b] of different) expect(await key(a), `${a} / ${b}`).not.toBe(await key(b));
  });

  it('rank exact matches first and never give a fuzzy rule a higher confidence than an exact one', () => {
    const order = MATCH_RULES.map((r) => r.confidence);
    const rank = { HIGH: 0, MEDIUM: 1, LOW: 2 };
    for (let i = 1; i < order.length; i++) expect(rank[order[i]]).toBeGreaterThanOrEqual(rank[order[i - 1]]);
    expect(MATCH_RULES.map((r) => r.id)).toEqual(expect.arrayContaining(['EXACT', 'STREET_SPELLING', 'LETTER_MISSING', 'POSTAL_CODE_DIFFERS', 'FUZZY']));
  });
});
