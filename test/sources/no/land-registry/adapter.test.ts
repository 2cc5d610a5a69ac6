import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tablesDigest } from '../../../support/live-snapshot.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/land-registry');
const GOOD = path.join(FIXTURES, 'oslo-bergen.jsonl');
const TABLES = ['person', 'owner', 'property_transaction', 'transaction_party'];

let pipeline: TestPipeline;

beforeAll(async () => {
  // The malformed file rejects most of its rows on purpose.
  pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '1' });
});
afterAll(async () => {
  await pipeline?.stop();
});

const digest = () => tablesDigest(pipeline.pool, TABLES);

describe('no-land-registry backfill through the worker', () => {
  it('publishes title holders, persons, transfers and their parties', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: GOOD });
    expect(summary.outcome).toBe('succeeded');
    expect(sourceOf(summary, 'no-land-registry')).toMatchObject({ outcome: 'published', rowsRead: 4, rowsStaged: 4, rowsRejected: 0 });

    const owners = (await pipeline.pool.query(
      `SELECT cadastre_id, kind, person_id, birth_year, org_scheme, org_id, org_name, share_numerator AS n, share_denominator AS d, municipality_code
       FROM owner ORDER BY cadastre_id, owner_key`,
    )).rows;
    expect(owners).toEqual([
      { cadastre_id: '0301-208-327-0-0', kind: 'PERSON', person_id: 'p-kari-0001', birth_year: 1978, org_scheme: null, org_id: null, org_name: null, n: 1, d: 2, municipality_code: '0301' },
      { cadastre_id: '0301-208-327-0-0', kind: 'PERSON', person_id: 'p-ola-00002', birth_year: 1975, org_scheme: null, org_id: null, org_name: null, n: 1, d: 2, municipality_code: '0301' },
      { cadastre_id: '0301-208-330-0-1', kind: 'ORGANIZATION', person_id: null, birth_year: null, org_scheme: '0192', org_id: '914778271', org_name: 'EIENDOM OSLO AS', n: 1, d: 1, municipality_code: '0301' },
      { cadastre_id: '0301-208-330-0-2', kind: 'ORGANIZATION', person_id: null, birth_year: null, org_scheme: '0192', org_id: '987654325', org_name: 'BOLIGSAMEIET ØST SA', n: 1, d: 3, municipality_code: '0301' },
      { cadastre_id: '0301-208-330-0-2', kind: 'PERSON', person_id: 'p-lise-0004', birth_year: null, org_scheme: null, org_id: null, org_name: null, n: 2, d: 3, municipality_code: '0301' },
      { cadastre_id: '4601-41-7-3-0', kind: 'PERSON', person_id: 'p-anne-0005', birth_year: 1990, org_scheme: null, org_id: null, org_name: null, n: 1, d: 1, municipality_code: '4601' },
    ]);

    // The company-properties list: what organisation 914778271 holds title to.
    const held = await pipeline.pool.query(`SELECT cadastre_id FROM owner WHERE org_scheme = '0192' AND org_id = '914778271'`);
    expect(held.rows).toEqual([{ cadastre_id: '0301-208-330-0-1' }]);

    const sale = (await pipeline.pool.query(
      `SELECT registered_at, kind, register_kind, price_amount, price_currency, share_numerator, share_denominator, source, document_number
       FROM property_transaction WHERE cadastre_id = '0301-208-327-0-0' ORDER BY registered_at DESC LIMIT 1`,
    )).rows[0];
    expect(sale).toMatchObject({ kind: 'SALE', register_kind: 'Fritt salg', price_amount: 6450000, price_currency: 'NOK', share_numerator: 1, share_denominator: 1, source: 'MAPPING_AUTHORITY_TINGLYSING', document_number: '2019/456789-1/200' });
    expect(new Date(sale.registered_at).toISOString()).toBe('2019-05-03T07:30:00.000Z');
    expect(await pipeline.pool.query(`SELECT count(*)::int AS n FROM property_transaction`).then((r) => r.rows[0].n)).toBe(3);

    const parties = (await pipeline.pool.query(
      `SELECT role, ordinal, kind, person_id, birth_year, share_numerator AS n, share_denominator AS d FROM transaction_party
       WHERE transaction_id = '0301-208-327-0-0|2019/456789-1/200' ORDER BY role, ordinal`,
    )).rows;
    expect(parties).toEqual([
      { role: 'BUYER', ordinal: 0, kind: 'PERSON', person_id: 'p-kari-0001', birth_year: 1978, n: 1, d: 2 },
      { role: 'BUYER', ordinal: 1, kind: 'PERSON', person_id: 'p-ola-00002', birth_year: 1975, n: 1, d: 2 },
      { role: 'SELLER', ordinal: 0, kind: 'PERSON', person_id: 'p-per-00003', birth_year: 1950, n: 1, d: 1 },
    ]);
  });

  it('keeps person names in the person table only', async () => {
    const persons = (await pipeline.pool.query(`SELECT person_id, name FROM person ORDER BY person_id`)).rows;
    expect(persons).toEqual([
      { person_id: 'p-anne-0005', name: 'Anne Dahl' },
      { person_id: 'p-kari-0001', name: 'Kari Nordmann' },
      { person_id: 'p-lise-0004', name: 'Lise Berg' },
      { person_id: 'p-ola-00002', name: 'Ola Nordmann' },
      { person_id: 'p-per-00003', name: 'Per Hansen' },
    ]);
    for (const table of ['owner', 'property_transaction', 'transaction_party']) {
      const leaked = await pipeline.pool.query(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text ~ '(Nordmann|Hansen|Berg|Dahl)'`);
      expect(leaked.rows[0].n, table).toBe(0);
    }
  });

  it('changes nothing on the same file again, unchanged or forced', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: GOOD });
    expect(sourceOf(again, 'no-land-registry')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: GOOD, force: true });
    expect(sourceOf(forced, 'no-land-registry')).toMatchObject({ outcome: 'published', rowsRead: 4, inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toEqual(before);
  });

  it('applies a corrected name and a withdrawn transfer, and nothing else', async () => {
    const lines = (await readFile(GOOD, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    const first = lines[0];
    for (const holder of first.hjemmelshavere) if (holder.rettighetshaver.personidentifikator === 'p-ola-00002') holder.rettighetshaver.navn = 'Ola Nordmann Berg';
    for (const party of first.overdragelser[0].kjøpere) if (party.rettighetshaver.personidentifikator === 'p-ola-00002') party.rettighetshaver.navn = 'Ola Nordmann Berg';
    first.overdragelser.pop(); // the 2001 inheritance
    const changed = path.join(pipeline.dataDir, 'oslo-bergen-changed.jsonl');
    await writeFile(changed, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');

    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input: changed });
    const run = sourceOf(summary, 'no-land-registry');
    expect(run.outcome).toBe('published');
    const tables = (await pipeline.pool.query(`SELECT details->'tables' AS tables FROM source_run WHERE run_id = $1`, [summary.runId])).rows[0].tables;
    expect(tables).toEqual({
      owner: { inserted: 0, updated: 0, deleted: 0 },
      property_transaction: { inserted: 0, updated: 0, deleted: 1 },
      transaction_party: { inserted: 0, updated: 0, deleted: 1 },
      person: { inserted: 0, updated: 1, deleted: 0 },
    });
    expect((await pipeline.pool.query(`SELECT name FROM person WHERE person_id = 'p-ola-00002'`)).rows[0].name).toBe('Ola Nordmann Berg');
    // Per Hansen is still named as the seller of the 2019 sale.
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM person WHERE person_id = 'p-per-00003'`)).rows[0].n).toBe(1);
  });

  it('rejects each malformed blad with its line and reason, and replaces only the municipality the file covers', async () => {
    const input = path.join(FIXTURES, 'malformed.jsonl');
    // One good blad of 0301 against three live ones there: refused as a drop unless forced.
    const refused = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input });
    expect(sourceOf(refused, 'no-land-registry').error).toMatch(/snapshot has 1 rows against 3 live/);
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-land-registry', input, force: true });
    expect(sourceOf(summary, 'no-land-registry')).toMatchObject({ outcome: 'published', rowsRead: 12, rowsStaged: 1, rowsRejected: 11 });
    const rejects = (await pipeline.pool.query(`SELECT position, reason FROM source_reject WHERE run_id = $1 ORDER BY position`, [summary.runId])).rows;
    const reasons = rejects.map((r) => [Number(r.position), r.reason as string] as const);
    const expected: [number, RegExp][] = [
      [2, /^not valid JSON/],
      [3, /^schema no-land-registry: \(record\) must have required property 'matrikkelenhet'/],
      [4, /the shares sum to 3\/4, not 1/],
      [5, /andel 3\/2 is more than the whole/],
      [6, /^schema no-land-registry: .*teller must be >= 1/],
      [7, /looks like a fødselsnummer/],
      [8, /organisasjonsnummer 914778272 fails the modulus-11 check digit/],
      [9, /P:p-kari-0001 is listed twice/],
      [10, /the buyers' shares sum to 1\/2, the transfer is of 1\/1/],
      [11, /^schema no-land-registry: .*tinglysingsdato must match/],
      [12, /^duplicate key cadastre_id=0301-208-327-0-0 \(first at position 1\)/],
    ];
    expect(reasons.map(([position]) => position)).toEqual(expected.map(([position]) => position));
    expected.forEach(([, reason], i) => expect(reasons[i][1]).toMatch(reason));

    // 0301 now holds only the one good blad; Bergen (4601), absent from the file, is untouched.
    const owned = (await pipeline.pool.query(`SELECT DISTINCT cadastre_id FROM owner ORDER BY 1`)).rows.map((r) => r.cadastre_id);
    expect(owned).toEqual(['0301-208-327-0-0', '4601-41-7-3-0']);
    // Lise Berg held and sold only the sections that left: her name is gone with them.
    const persons = (await pipeline.pool.query(`SELECT person_id, name FROM person ORDER BY 1`)).rows;
    expect(persons).toEqual([
      { person_id: 'p-anne-0005', name: 'Anne Dahl' },
      { person_id: 'p-kari-0001', name: 'Kari Nordmann' },
      { person_id: 'p-ola-00002', name: 'Ola Nordmann' },
      { person_id: 'p-per-00003', name: 'Per Hansen' },
    ]);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM transaction_party WHERE person_id = 'p-lise-0004'`)).rows[0].n).toBe(0);
  });
});
