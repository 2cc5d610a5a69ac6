import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { searchAddresses } from '../../api/store/address-search.js';
import { loadSampleAddresses } from '../../bench/address-rows.js';
import { clientWithToken, get, type TestClient } from './support/api-server.js';
import { startApiTest, type ApiTest } from './support/api-test.js';

// Address search on a table large enough that the planner's choices are the ones it makes at
// national size: the sample generator's Norwegian addresses at 1.5 % of national size (about
// 39,000), the register fixtures (Norway and Sweden) and a street with house letters, ANALYZEd.
// Every query shape must read the table through an index, and only a bounded number of rows:
// never the country.

/** Address rows a search may read (index scans' and bitmap heap scans' rows, filtered ones included): 20 + 2 × 200 and some room. */
const MAX_ROWS_READ = 500;

let api: ApiTest;
let client: TestClient;
let addressCount = 0;
/** Real values of the generated table, for the query shapes. */
let street = '';
/** A house number of that street (without letter) found in several places. */
let houseNumber = 0;
let postalCode = '';
let nordicStreet = '';

const ROGNETUNET = [
  ['rg-9', 9, null],
  ['rg-98', 98, null],
  ['rg-98a', 98, 'A'],
  ['rg-98b', 98, 'B'],
  ['rg-198a', 198, 'A'],
] as const;

beforeAll(async () => {
  api = await startApiTest();
  await loadSampleAddresses(api.db, { scale: 0.015, seed: 'address-search-test' });
  for (const [id, number, letter] of ROGNETUNET) {
    await api.db.query(
      `INSERT INTO address (country, address_id, cadastre_id, municipality_code, municipality_name, street_name, house_number, house_letter, address_text, postal_code, postal_place, geom, source_srid, row_hash, published_run_id)
       VALUES ('NO', $1, '4601-900-1-0-0', '4601', 'BERGEN', 'Rognetunet', $2, $3, $4, '5089', 'BERGEN', ST_SetSRID(ST_MakePoint(5.33, 60.39), 4326), 25832, gen_random_uuid(), 'fixture')`,
      [id, number, letter, `Rognetunet ${number}${letter ?? ''}`],
    );
  }
  await api.db.query('ANALYZE address');
  addressCount = (await api.db.query(`SELECT count(*)::int AS n FROM address WHERE country = 'NO'`)).rows[0].n;
  street = (await api.db.query(`SELECT street_name FROM address WHERE street_name IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)).rows[0].street_name;
  houseNumber = (await api.db.query(`SELECT house_number FROM address WHERE street_name = $1 AND house_letter IS NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`, [street])).rows[0].house_number;
  postalCode = (await api.db.query(`SELECT postal_code FROM address WHERE country = 'NO' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)).rows[0].postal_code;
  nordicStreet = (await api.db.query(`SELECT street_name FROM address WHERE street_name ~ '[æøå]' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)).rows[0].street_name;
  client = await clientWithToken(api.db, api.baseUrl, { scopes: ['properties.read'] });
}, 300_000);
afterAll(async () => {
  await api?.stop();
});

interface Statement {
  text: string;
  values: unknown[];
}

/** The pool as searchAddresses sees it, recording every statement it sends (pool.query or a checked-out client's). */
function recordingPool(pool: pg.Pool, statements: Statement[]): pg.Pool {
  const record = (args: unknown[]) => {
    const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    if (typeof first === 'string') statements.push({ text: first, values: second ?? [] });
    else statements.push({ text: first.text, values: first.values ?? second ?? [] });
  };
  const wrap = <T extends object>(target: T, extra: Record<string | symbol, unknown> = {}): T =>
    new Proxy(target, {
      get(object, property) {
        if (property in extra) return extra[property];
        if (property === 'query') return (...args: unknown[]) => (record(args), (object as unknown as pg.Pool).query(...(args as [string])));
        const value = Reflect.get(object, property, object);
        return typeof value === 'function' ? value.bind(object) : value;
      },
    });
  return wrap(pool, { connect: async () => wrap(await pool.connect()) });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
/** An index condition that is more than the country: one that narrows the scan to the query. */
const narrows = (condition: string | undefined) => !!condition && !/^\(country = '[A-Z]{2}'::text\)$/.test(condition);

interface AddressReads {
  seqScans: number;
  indexScans: string[];
  /** Index scans on address whose only condition is the country (a whole country in index order). */
  countryWide: string[];
  rowsRead: number;
}

/** What a statement's plan, run (EXPLAIN ANALYZE), did with the address table. */
async function addressReads(pool: pg.Pool, statement: Statement): Promise<AddressReads> {
  const explained = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
  const nodes = nodesOf(explained.rows[0]['QUERY PLAN'][0].Plan as PlanNode);
  const onAddress = nodes.filter((node) => node['Relation Name'] === 'address');
  const reads: AddressReads = { seqScans: 0, indexScans: [], countryWide: [], rowsRead: 0 };
  for (const node of onAddress) {
    const loops = node['Actual Loops'] ?? 0;
    reads.rowsRead += ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * loops;
    if (node['Node Type'] === 'Seq Scan') reads.seqScans++;
    if (node['Node Type'] === 'Index Scan' || node['Node Type'] === 'Index Only Scan') {
      reads.indexScans.push(node['Index Name']!);
      if (!narrows(node['Index Cond'])) reads.countryWide.push(node['Index Name']!);
    }
    if (node['Node Type'] === 'Bitmap Heap Scan') {
      for (const bitmap of nodesOf(node).filter((n) => n['Node Type'] === 'Bitmap Index Scan')) {
        reads.indexScans.push(bitmap['Index Name']!);
        if (!narrows(bitmap['Index Cond'])) reads.countryWide.push(bitmap['Index Name']!);
      }
    }
  }
  return reads;
}

/** Runs the search through a recording pool, then EXPLAIN ANALYZEs each statement it sent that reads address. */
async function searchPlans(country: string, text: string, sandbox = false): Promise<AddressReads[]> {
  const statements: Statement[] = [];
  await searchAddresses(recordingPool(api.db, statements), country, text, sandbox);
  const reading = statements.filter((s) => /\baddress\b/i.test(s.text) && !/^\s*(BEGIN|COMMIT|ROLLBACK|SET)\b/i.test(s.text));
  expect(reading.length, `${text}: a statement that reads address`).toBeGreaterThan(0);
  return Promise.all(reading.map((statement) => addressReads(api.db, statement)));
}

describe('address search: every query shape through an index, at a bounded cost', () => {
  const shapes: [shape: string, country: string, text: () => string, sandbox?: boolean][] = [
    ['only short words', 'NO', () => '1 2 3'],
    ['a single letter', 'NO', () => 'A'],
    ['two single letters', 'NO', () => 'a b'],
    ['one long word (a street)', 'NO', () => street],
    ['one long word (a place)', 'NO', () => 'Oslo'],
    ['street and number', 'NO', () => `${street} ${houseNumber}`],
    ['street, number and letter apart', 'NO', () => 'Rognetunet 98 A'],
    ['number before street, postal code after', 'NO', () => `${houseNumber} ${street} ${postalCode}`],
    ['postal code only', 'NO', () => postalCode],
    ['a place and a number (vague)', 'NO', () => 'Oslo 1'],
    ['æøå', 'NO', () => `${nordicStreet} 12`],
    ['æøå folded to ASCII, abbreviated', 'NO', () => 'Taernvn. 3'],
    ['åäö (Sweden)', 'SE', () => 'Östermalmsgatan 5'],
    ['Swedish postal code written apart', 'SE', () => '112 21'],
    ['a sandbox client (demo properties only)', 'NO', () => street, true],
  ];

  it('the table is large enough that a scan of it is not the planner\'s easy way out', () => {
    expect(addressCount).toBeGreaterThan(30_000);
  });

  for (const [shape, country, text, sandbox] of shapes) {
    it(`${shape}: no Seq Scan on address, an index narrowed to the query, at most ${MAX_ROWS_READ} rows read`, async () => {
      if (sandbox) await api.db.query(`INSERT INTO api_demo_property SELECT DISTINCT country, cadastre_id FROM address WHERE country = 'NO' AND cadastre_id IS NOT NULL ORDER BY 2 DESC LIMIT 25 ON CONFLICT DO NOTHING`);
      for (const reads of await searchPlans(country, text(), sandbox)) {
        expect(reads.seqScans, `${text()}: Seq Scan on address`).toBe(0);
        expect(reads.indexScans.length, `${text()}: an index scan of address`).toBeGreaterThan(0);
        expect(reads.countryWide, `${text()}: index scans over the whole country`).toEqual([]);
        expect(reads.rowsRead, `${text()}: address rows read`).toBeLessThanOrEqual(MAX_ROWS_READ);
      }
    });
  }
});

describe('address search: what it finds', () => {
  const search = (text: string, country = 'NO') => searchAddresses(api.db, country, text, false) as Promise<{ text: string; postalCode: string }[]>;
  const texts = async (text: string, country = 'NO') => (await search(text, country)).map((a) => a.text);

  it('a house letter written apart from its number: "Rognetunet 98 A" finds Rognetunet 98A first', async () => {
    expect((await texts('Rognetunet 98 A'))[0]).toBe('Rognetunet 98A');
    expect((await texts('rognetunet 98 b, 5089 Bergen'))[0]).toBe('Rognetunet 98B');
    expect((await texts('ROGNETUNET 98a'))[0]).toBe('Rognetunet 98A');
  });

  it('a number alone finds the number, then its lettered addresses, in number order; not 198A', async () => {
    // The generated addresses may have a Rognetunet too: the inserted ones are those in 5089.
    const inBergen = async (text: string) => (await search(text)).filter((a) => a.postalCode === '5089').map((a) => a.text);
    expect(await inBergen('Rognetunet 98')).toEqual(['Rognetunet 98', 'Rognetunet 98A', 'Rognetunet 98B']);
    expect(await inBergen('Rognetunet 5089')).toEqual(['Rognetunet 9', 'Rognetunet 98', 'Rognetunet 98A', 'Rognetunet 98B', 'Rognetunet 198A']);
  });

  it('words in any order, the street partly written', async () => {
    expect((await texts('98 A Rognetunet'))[0]).toBe('Rognetunet 98A');
    expect((await texts('Bergen Rognet 98b'))[0]).toBe('Rognetunet 98B');
  });

  it('a street and number: that address in every place first, at most 20', async () => {
    const found = await search(`${street} ${houseNumber}`);
    expect(found.length).toBeGreaterThan(1);
    expect(found.length).toBeLessThanOrEqual(20);
    expect(found[0].text).toBe(`${street} ${houseNumber}`);
    expect(found[1].text).toBe(`${street} ${houseNumber}`);
  });

  it('a postal code alone: addresses of that postal code', async () => {
    const found = await search(postalCode);
    expect(found).toHaveLength(20);
    expect(found.every((a) => a.postalCode === postalCode)).toBe(true);
  });

  it('a sandbox client finds only addresses of demo properties and of their sections', async () => {
    await api.db.query(`INSERT INTO api_demo_property VALUES ('NO', '4601-900-1-0-0') ON CONFLICT DO NOTHING`);
    await api.db.query(
      `INSERT INTO section (country, cadastre_id, property_cadastre_id, section_number, share_numerator, share_denominator, use_type, row_hash, published_run_id)
       VALUES ('NO', '4601-900-1-0-1', '4601-900-1-0-0', '1', 1, 2, 'BOLIG', gen_random_uuid(), 'fixture') ON CONFLICT DO NOTHING`,
    );
    await api.db.query(
      `INSERT INTO address (country, address_id, cadastre_id, municipality_code, municipality_name, street_name, house_number, house_letter, address_text, postal_code, postal_place, geom, source_srid, row_hash, published_run_id)
       VALUES ('NO', 'rg-98c', '4601-900-1-0-1', '4601', 'BERGEN', 'Rognetunet', 98, 'C', 'Rognetunet 98C', '5089', 'BERGEN', ST_SetSRID(ST_MakePoint(5.33, 60.39), 4326), 25832, gen_random_uuid(), 'fixture')
       ON CONFLICT DO NOTHING`,
    );
    const found = (await searchAddresses(api.db, 'NO', 'Rognetunet', true)) as { text: string; cadastreId: string }[];
    expect(found.map((a) => a.text)).toEqual(['Rognetunet 9', 'Rognetunet 98', 'Rognetunet 98A', 'Rognetunet 98B', 'Rognetunet 98C', 'Rognetunet 198A']);
    expect(new Set(found.map((a) => a.cadastreId))).toEqual(new Set(['4601-900-1-0-0', '4601-900-1-0-1']));
    expect((await searchAddresses(api.db, 'NO', 'Rognetunet 98 c', true)) as { text: string }[]).toMatchObject([{ text: 'Rognetunet 98C' }]);
    await api.db.query(`DELETE FROM address WHERE address_id = 'rg-98c'`);
  });

  it('only short words: answered by the start of an address, no error', async () => {
    expect(await texts('1 2 3')).toEqual([]);
    expect(await texts('%_\\\'";--')).toEqual([]);
    const letterA = await texts('A');
    expect(letterA.length).toBe(20);
  });
});

describe('GET /addresses/{country}/{address}', () => {
  it('answers the house-letter and the short-word queries', async () => {
    const letter = await get(api.baseUrl, `/addresses/NO/${encodeURIComponent('Rognetunet 98 A')}`, client.token);
    expect(letter.status).toBe(200);
    expect(letter.body.items[0].text).toBe('Rognetunet 98A');
    const short = await get(api.baseUrl, `/addresses/NO/${encodeURIComponent('1 2 3')}`, client.token);
    expect(short.status).toBe(200);
    expect(short.body).toEqual({ items: [] });
  });

  it('a search that cannot finish in time (the table locked): 503 Problem Details, not 500', async () => {
    const lock = await api.db.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE address IN ACCESS EXCLUSIVE MODE');
      const stopped = await Promise.race([
        searchAddresses(api.db, 'NO', street, false, { timeoutMs: 200 }).then(
          () => 'answered',
          (error) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
      ]);
      expect(stopped).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      const response = await Promise.race([
        get(api.baseUrl, `/addresses/NO/${encodeURIComponent(street)}`, client.token),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 8_000)),
      ]);
      expect(response?.status).toBe(503);
      expect(response?.contentType).toMatch(/^application\/problem\+json/);
      expect(response?.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', detail: expect.stringMatching(/did not finish within 1000 ms/) });
      expect(response?.headers.get('retry-after')).toBe('1');
    } finally {
      await lock.query('ROLLBACK');
      lock.release();
    }
  }, 30_000);
});
