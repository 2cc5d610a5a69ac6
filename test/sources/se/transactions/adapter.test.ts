import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seTransactions } from '../../../../sources/se/transactions/adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { parseAll, rowObject } from '../parse-all.js';
import { writeTarBundle } from '../tar-bundle.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/se/transactions');
const CODE_TABLES = ['K_LANKOD.txt', 'K_KOMKOD.txt', 'K_FANGESKOD.txt', 'K_OTYP.txt'];
const SALES = 'fastighetspriser.jsonl';

let dir: string;
let bundle: string;
const fixture = (name: string) => readFile(path.join(FIXTURES, name));
async function bundleOf(name: string, sales: string | Buffer, tables = CODE_TABLES): Promise<string> {
  const members = await Promise.all(tables.map(async (table) => ({ name: `koder/${table}`, content: await fixture(table) })));
  return writeTarBundle(path.join(dir, name), [...members, { name: SALES, content: sales }]);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'se-transactions-'));
  bundle = await bundleOf('fastighetspriser_0000_sverige.tar', await fixture(SALES));
});

describe('se-transactions parser', () => {
  it('reads sales with codes resolved, parties kept in register order', async () => {
    const { rows } = await parseAll(seTransactions, bundle);
    const first = rowObject(seTransactions, rows[0].values);
    expect(first).toMatchObject({
      transaction_id: 'LM-2024-000101', cadastre_id: '0180_KUNGSHOLMEN_1_2', municipality_code: '0180', registered_at: '2024-04-02 00:00:00 Europe/Stockholm',
      purchase_date: '2024-03-14', kind: 'SALE', register_kind: 'Köp', price_amount: 4500000, share_numerator: 1, share_denominator: 1,
      object_type_code: '220', object_type_name: 'Småhusenhet, bebyggd', taxation_unit_type_code: '220', taxation_value: 3100000, taxation_year: 2023, price_coefficient: 1.45,
    });
    expect(JSON.parse(first.parties as string)).toEqual([
      { role: 'BUYER', ordinal: 0, kind: 'PERSON', person_id: 'p-1', name: 'Anna Berg', birth_year: 1980, org_id: null, org_name: null, org_country: null, share_numerator: 1, share_denominator: 2 },
      { role: 'BUYER', ordinal: 1, kind: 'PERSON', person_id: 'p-2', name: 'Erik Berg', birth_year: 1978, org_id: null, org_name: null, org_country: null, share_numerator: 1, share_denominator: 2 },
      { role: 'SELLER', ordinal: 0, kind: 'ORGANIZATION', person_id: null, name: null, birth_year: null, org_id: '5566778899', org_name: 'Exempel Sverige AB', org_country: 'SE', share_numerator: null, share_denominator: null },
    ]);
    expect(rowObject(seTransactions, rows[2].values)).toMatchObject({ cadastre_id: '2480_TOLVMANSGÅRDEN_4', kind: 'GIFT', price_amount: null });
  });

  it('rejects bad codes, missing fields and broken rules with reasons', async () => {
    const { rows, rejects } = await parseAll(seTransactions, bundle);
    expect(rows.map((r) => r.values[0])).toEqual(['LM-2024-000101', 'LM-2026-000555', 'LM-2025-002480-1', 'LM-2025-002480-2', 'LM-2024-000101']);
    expect(rejects.map((r) => r.reason.replace(/^fastighetspriser\.jsonl line \d+: /, ''))).toEqual([
      'fangeskod "9" is not in K_FANGESKOD',
      'kommunkod 0180 does not lie in län 24',
      'a Köp without kopeskilling',
      'designation "KUNGSHOLMEN" has no trakt and unit (expected e.g. KUNGSHOLMEN 1:2)',
      'kopare[0] is a person without personId',
      'saljare[0].organisationsnummer "5591234567" fails its check digit',
      'schema se-transactions: /kopeskilling must be integer,null',
      'andel 3/2 is more than the whole',
      'kopedatum 2025-02-01 is after inskrivningsdag 2025-01-01',
    ]);
  });

  it('fails a bundle whose code tables are missing or come after the sales', async () => {
    const withoutFang = await bundleOf('no-fang.tar', await fixture(SALES), CODE_TABLES.filter((t) => t !== 'K_FANGESKOD.txt'));
    await expect(parseAll(seTransactions, withoutFang)).rejects.toThrow(/code table\(s\) K_FANGESKOD missing before fastighetspriser\.jsonl/);
    const late = await writeTarBundle(path.join(dir, 'late.tar'), [
      { name: SALES, content: await fixture(SALES) },
      ...(await Promise.all(CODE_TABLES.map(async (t) => ({ name: t, content: await fixture(t) })))),
    ]);
    await expect(parseAll(seTransactions, late)).rejects.toThrow(/code table\(s\) K_LANKOD, K_KOMKOD, K_FANGESKOD, K_OTYP missing/);
  });
});

describe('se-transactions backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '0.9' });
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  const digest = async () =>
    (await pipeline.pool.query(
      `SELECT (SELECT md5(string_agg(t::text, '|' ORDER BY transaction_id)) FROM property_transaction t WHERE country = 'SE') ||
              (SELECT md5(string_agg(p::text, '|' ORDER BY transaction_id, role, ordinal)) FROM transaction_party p WHERE country = 'SE') ||
              (SELECT md5(string_agg(o::text, '|' ORDER BY owner_key)) FROM owner o WHERE country = 'SE') ||
              (SELECT md5(string_agg(p::text, '|' ORDER BY person_id)) FROM person p WHERE country = 'SE') AS d`,
    )).rows[0].d;

  it('publishes transactions, parties, owners from the latest transfer, and names only in person', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-transactions', input: bundle });
    expect(sourceOf(summary, 'se-transactions')).toMatchObject({ outcome: 'published', rowsStaged: 4, inserted: 4, updated: 0, deleted: 0 });
    // The ledger times each table of the publish, so a slow one can be told apart.
    const steps = (await pipeline.pool.query(
      `SELECT details->'publishStepsMs' AS steps FROM source_run WHERE source_id = 'se-transactions' AND outcome = 'published' ORDER BY started_at DESC LIMIT 1`,
    )).rows[0].steps as Record<string, number>;
    expect(Object.keys(steps).filter((step) => !step.includes('.')).sort()).toEqual(['line_hashes', 'owner', 'party_name', 'person', 'property_transaction', 'transaction_party']);
    // …and the statements of the transactions' merge (a first load: the indexes built after the insert).
    expect(Object.keys(steps)).toEqual(expect.arrayContaining(['property_transaction.insert', 'property_transaction.property_transaction_cadastre_idx']));
    expect(Object.values(steps).every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
    const transactions = (await pipeline.pool.query(
      `SELECT transaction_id, cadastre_id, to_char(registered_at AT TIME ZONE 'Europe/Stockholm', 'YYYY-MM-DD HH24:MI') AS registered, kind, price_amount::float AS price,
              price_currency, source, taxation_value::float AS taxation_value, municipality_code
       FROM property_transaction WHERE country = 'SE' ORDER BY transaction_id`,
    )).rows;
    expect(transactions).toEqual([
      { transaction_id: 'LM-2024-000101', cadastre_id: '0180_KUNGSHOLMEN_1_2', registered: '2024-04-02 00:00', kind: 'SALE', price: 4500000, price_currency: 'SEK', source: 'MAPPING_AUTHORITY_LAGFART', taxation_value: 3100000, municipality_code: '0180' },
      { transaction_id: 'LM-2025-002480-1', cadastre_id: '2480_TOLVMANSGÅRDEN_4', registered: '2025-01-10 00:00', kind: 'GIFT', price: null, price_currency: null, source: 'MAPPING_AUTHORITY_LAGFART', taxation_value: null, municipality_code: '2480' },
      { transaction_id: 'LM-2025-002480-2', cadastre_id: '2480_ÖSTERMALM_7_12', registered: '2025-06-20 00:00', kind: 'SALE', price: 2150000, price_currency: 'SEK', source: 'MAPPING_AUTHORITY_LAGFART', taxation_value: null, municipality_code: '2480' },
      { transaction_id: 'LM-2026-000555', cadastre_id: '0180_KUNGSHOLMEN_1_2', registered: '2026-05-20 00:00', kind: 'SALE', price: 6200000, price_currency: 'SEK', source: 'MAPPING_AUTHORITY_LAGFART', taxation_value: 3900000, municipality_code: '0180' },
    ]);
    const sellers = (await pipeline.pool.query(
      `SELECT ordinal, kind, person_id, birth_year, org_scheme, org_id, org_name, org_country FROM transaction_party WHERE transaction_id = 'LM-2025-002480-2' AND role = 'SELLER' ORDER BY ordinal`,
    )).rows;
    expect(sellers).toEqual([
      { ordinal: 0, kind: 'PERSON', person_id: 'p-6', birth_year: 1949, org_scheme: null, org_id: null, org_name: null, org_country: null },
      { ordinal: 1, kind: 'ORGANIZATION', person_id: null, birth_year: null, org_scheme: null, org_id: '998877665', org_name: 'Norsk Eiendom AS', org_country: 'NO' },
    ]);
    const owners = (await pipeline.pool.query(`SELECT cadastre_id, kind, person_id, org_scheme, org_id, share_numerator, share_denominator FROM owner WHERE country = 'SE' ORDER BY owner_key`)).rows;
    expect(owners).toEqual([
      { cadastre_id: '0180_KUNGSHOLMEN_1_2', kind: 'ORGANIZATION', person_id: null, org_scheme: '0007', org_id: '5567037485', share_numerator: 1, share_denominator: 1 },
      { cadastre_id: '2480_TOLVMANSGÅRDEN_4', kind: 'PERSON', person_id: 'p-3', org_scheme: null, org_id: null, share_numerator: 1, share_denominator: 1 },
      { cadastre_id: '2480_ÖSTERMALM_7_12', kind: 'PERSON', person_id: 'p-5', org_scheme: null, org_id: null, share_numerator: 1, share_denominator: 1 },
    ]);
    expect((await pipeline.pool.query(`SELECT person_id, name FROM person WHERE country = 'SE' ORDER BY person_id`)).rows).toEqual([
      { person_id: 'p-1', name: 'Anna Berg' }, { person_id: 'p-2', name: 'Erik Berg' }, { person_id: 'p-3', name: 'Sara Lind' },
      { person_id: 'p-4', name: 'Gunnar Lind' }, { person_id: 'p-5', name: 'Oskar Nyström' }, { person_id: 'p-6', name: 'Maja Öberg' },
    ]);
    const rejects = (await pipeline.pool.query(`SELECT reason FROM source_reject WHERE source_id = 'se-transactions'`)).rows.map((r) => r.reason);
    expect(rejects).toHaveLength(10);
    expect(rejects).toContainEqual(expect.stringMatching(/duplicate key transaction_id=LM-2024-000101/));
  });

  it('a night whose code table comes after the sales fails with the parser\'s reason, live untouched', async () => {
    // Live holds the bundle and its sales' hashes. A code table after the sales could change what
    // a sale before it means: the hash pass gives up on reading the sales apart, and the parser,
    // reading the bundle whole, refuses a sale whose code tables have not all come before it.
    const before = await digest();
    const members = await Promise.all(CODE_TABLES.map(async (table) => ({ name: `koder/${table}`, content: await fixture(table) })));
    const late = await writeTarBundle(path.join(await mkdtemp(path.join(dir, 'late-')), 'fastighetspriser_0000_sverige.tar'), [
      ...members.slice(0, 3), { name: SALES, content: await fixture(SALES) }, members[3],
    ]);
    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-transactions', input: late }), 'se-transactions');
    expect(night.outcome).toBe('failed');
    expect(night.error).toMatch(/code table\(s\) K_OTYP missing before fastighetspriser\.jsonl; a sale cannot be checked without them/);
    expect(await digest()).toBe(before);
  });

  it('changes nothing on the same input; a municipality extract replaces only that municipality', async () => {
    const before = await digest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-transactions', input: bundle });
    expect(sourceOf(again, 'se-transactions')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-transactions', input: bundle, force: true });
    expect(sourceOf(forced, 'se-transactions')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await digest()).toBe(before);

    // Umeå's extract alone: the gift has left the register, the sale's price was corrected.
    const umea = (await fixture(SALES)).toString('utf8').split('\n')
      .filter((line) => line.includes('"kommunkod": "2480"') && !line.includes('LM-2025-002480-1') && line.includes('"kopId": "LM-'))
      .map((line) => line.replace('2150000', '2175000'));
    expect(umea).toHaveLength(1);
    const extract = await bundleOf('fastighetspriser_2480_umea.tar', `${umea.join('\n')}\n`);
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-transactions', input: extract, force: true });
    expect(sourceOf(summary, 'se-transactions')).toMatchObject({ outcome: 'published', inserted: 0, updated: 1, deleted: 1 });
    expect((await pipeline.pool.query(`SELECT transaction_id FROM property_transaction WHERE country = 'SE' ORDER BY 1`)).rows.map((r) => r.transaction_id))
      .toEqual(['LM-2024-000101', 'LM-2025-002480-2', 'LM-2026-000555']);
    // The gift's people and title holder went with it; Stockholm's are untouched.
    expect((await pipeline.pool.query(`SELECT cadastre_id FROM owner WHERE country = 'SE' ORDER BY 1`)).rows.map((r) => r.cadastre_id)).toEqual(['0180_KUNGSHOLMEN_1_2', '2480_ÖSTERMALM_7_12']);
    expect((await pipeline.pool.query(`SELECT person_id FROM person WHERE country = 'SE' ORDER BY 1`)).rows.map((r) => r.person_id)).toEqual(['p-1', 'p-2', 'p-5', 'p-6']);
  });

  it('keeps every person of a store published before the sales\' spellings were kept when its first run is a municipality extract', async () => {
    // A store from before party_name (schema/1764001800000): no spellings, no published line hashes.
    await pipeline.pool.query(`DELETE FROM party_name WHERE country = 'SE'`);
    await pipeline.pool.query(`DELETE FROM source_record WHERE source_id = 'se-transactions'`);
    const people = async () => (await pipeline.pool.query(`SELECT person_id, name FROM person WHERE country = 'SE' ORDER BY 1`)).rows;
    const before = await people();
    const umea = (await fixture(SALES)).toString('utf8').split('\n')
      .filter((line) => line.includes('"kommunkod": "2480"') && !line.includes('LM-2025-002480-1') && line.includes('"kopId": "LM-'));
    const extract = await bundleOf('fastighetspriser_2480_umea.tar', `${umea.join('\n')}\n`);
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-transactions', input: extract, force: true });
    expect(sourceOf(summary, 'se-transactions')).toMatchObject({ outcome: 'published', updated: 1 });
    // Stockholm's people have no spelling kept yet, and still their names.
    expect(await people()).toEqual(before);
  });
});
