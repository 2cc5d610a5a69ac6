import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seEnergy } from '../../../../sources/se/energy/adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { parseAll, rowObject } from '../parse-all.js';
import { writeTarBundle } from '../tar-bundle.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/se/energy');
const API = path.join(FIXTURES, 'stockholm-api.jsonl');
const EXTRACT = path.join(FIXTURES, 'umea-extract.csv');

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'se-energy-'));
  bundle = await writeTarBundle(path.join(dir, 'boverket_energideklarationer_0000_sverige.tar'), [
    { name: 'api/0180-stockholm.jsonl', content: await readFile(API) },
    { name: 'extract/energideklarationer.csv', content: await readFile(EXTRACT) },
  ]);
});

describe('se-energy parser', () => {
  it('reads API answers: unit-bearing numbers, designations without municipality, valid ten years', async () => {
    const { rows } = await parseAll(seEnergy, API);
    // First occurrence wins (line 10 repeats id 123456789; validation quarantines it).
    const byId = new Map(rows.toReversed().map((row) => [row.values[0], rowObject(seEnergy, row.values)]));
    expect(byId.get('123456789')).toMatchObject({
      cadastre_id: '0180_HELGEANDSHOLMEN_1', municipality_code: '0180', label: 'E', issued_date: '2021-01-01', valid_to_date: '2031-01-01',
      primary_energy_kwh_m2: 216, energy_performance_kwh_m2: 130, address_text: 'Riksgatan 1', postal_code: '11128', postal_place: 'Stockholm',
      radon_measurement: 'Inte utförd', ventilation_check: 'Utförd', input_shape: 'API',
    });
    // Thousands separated by a space, decimal comma, lower-case class, a trakt of two words,
    // a leap day whose tenth anniversary has none, two properties in one declaration.
    expect(byId.get('223456790')).toMatchObject({
      cadastre_id: '0180_STORA-ESSINGEN_2_14', cadastre_ids: ['0180_STORA-ESSINGEN_2_14', '0180_STORA-ESSINGEN_2_15'], label: 'C',
      primary_energy_kwh_m2: 1234.5, energy_performance_kwh_m2: 98.4, built_year: 1928, issued_date: '2020-02-29', valid_to_date: '2030-02-28', postal_code: '11267',
    });
    expect(byId.get('323456791')).toMatchObject({ cadastre_id: '0180_KUNGSHOLMEN_S_3', label: null, primary_energy_kwh_m2: null });
  });

  it('rejects each bad declaration with its line and reason', async () => {
    const { rows, rejects } = await parseAll(seEnergy, API);
    // The duplicate id (line 10) is staged; validation quarantines it against line 1.
    expect(rows.map((r) => r.position)).toEqual([1, 2, 3, 10]);
    const reasons = Object.fromEntries(rejects.map((r) => [r.position, r.reason]));
    expect(reasons[4]).toMatch(/primarenergital "ca 200 kWh\/m² och år" is not a number/);
    expect(reasons[5]).toMatch(/energiklass "H" is not A to G/);
    expect(reasons[6]).toMatch(/energiprestanda "130 liter" has unit "liter"/);
    expect(reasons[7]).toMatch(/schema se-energy-api: \/energideklaration\/fastigheter must NOT have fewer than 1 items/);
    expect(reasons[8]).toMatch(/designation "KUNGSHOLMEN" has no trakt and unit/);
    expect(reasons[9]).toMatch(/utford "21-03-2021" is not a date/);
    expect(reasons[11]).toMatch(/not valid JSON/);
    expect(rejects.every((r) => r.raw.length > 0)).toBe(true);
  });

  it('reads the register extract by column name, and rejects its bad rows', async () => {
    const { rows, rejects } = await parseAll(seEnergy, EXTRACT);
    expect(rows).toHaveLength(2);
    expect(rowObject(seEnergy, rows[0].values)).toMatchObject({
      certificate_id: '9100001', cadastre_id: '2480_TOLVMANSGÅRDEN_4', municipality_code: '2480', label: 'C', energy_performance_kwh_m2: 88.5,
      primary_energy_kwh_m2: 95.1, specific_energy_use_kwh_m2: 101, heated_area_m2: 1250, built_year: 1975, building_type: 'Flerbostadshus',
      floor_count: 4, address_text: 'Storgatan 12', house_number: '1', issued_date: '2024-02-15', valid_to_date: '2034-02-15', input_shape: 'EXTRACT',
    });
    expect(rowObject(seEnergy, rows[1].values)).toMatchObject({ cadastre_id: '2480_ÖSTERMALM_7_12', label: 'F' });
    const reasons = rejects.map((r) => `${r.position}: ${r.reason}`);
    expect(reasons).toEqual([
      expect.stringMatching(/^4: umea-extract.csv line 4: EgiEnergiPrestanda "ca 60" is not a number/),
      expect.stringMatching(/^5: umea-extract.csv line 5: IdKommun "Umeå" is not a kommunkod/),
      expect.stringMatching(/^6: umea-extract.csv line 6: row has 16 columns, the header has 17/),
      expect.stringMatching(/^7: umea-extract.csv line 7: FormularId "abc" is not a declaration number/),
      expect.stringMatching(/^8: umea-extract.csv line 8: row has 6 columns, the header has 17/),
      expect.stringMatching(/^9: umea-extract.csv line 9: unreadable line: .*quote/i),
    ]);
  });

  it('fails an extract re-saved as Latin-1 with a clear error instead of loading mojibake', async () => {
    const latin1 = path.join(dir, 'latin1.csv');
    await writeFile(latin1, Buffer.from(await readFile(EXTRACT, 'utf8'), 'latin1'));
    await expect(parseAll(seEnergy, latin1)).rejects.toThrow(/latin1\.csv is not valid UTF-8 near byte \d+ \(is it Latin-1/);
  });

  it('reads both shapes from one tar bundle, naming the member in each reject', async () => {
    const { rows, rejects } = await parseAll(seEnergy, bundle);
    expect(rows).toHaveLength(6);
    expect(rejects.find((r) => r.reason.startsWith('energideklarationer.csv line 5:'))?.reason).toMatch(/IdKommun "Umeå"/);
    expect(rejects.find((r) => r.reason.startsWith('0180-stockholm.jsonl line 5:'))?.reason).toMatch(/energiklass "H"/);
    // Positions stay unique and ascending across the members.
    const positions = [...rows, ...rejects].map((r) => r.position).sort((a, b) => a - b);
    expect(new Set(positions).size).toBe(positions.length);
    expect(rows.at(-1)!.position).toBeGreaterThan(1_000_000_000);
  });
});

describe('se-energy backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    // The fixtures are mostly malformed cases on purpose; the reject ceiling is not under test.
    pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '0.9' });
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  it('publishes the declarations as ENERGY_AGENCY certificates, and quarantines bad rows with reasons', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-energy', input: bundle });
    expect(sourceOf(summary, 'se-energy')).toMatchObject({ outcome: 'published', rowsStaged: 5, inserted: 5, updated: 0, deleted: 0 });
    const { rows } = await pipeline.pool.query(
      `SELECT certificate_id, cadastre_id, cadastre_ids, municipality_code, label, issued_date::text, valid_to_date::text, source, primary_energy_kwh_m2, heated_area_m2
       FROM energy_certificate WHERE country = 'SE' ORDER BY certificate_id`,
    );
    expect(rows.map((r) => r.certificate_id)).toEqual(['123456789', '223456790', '323456791', '9100001', '9100002']);
    expect(rows[0]).toMatchObject({ cadastre_id: '0180_HELGEANDSHOLMEN_1', label: 'E', issued_date: '2021-01-01', valid_to_date: '2031-01-01', source: 'ENERGY_AGENCY', primary_energy_kwh_m2: 216 });
    expect(rows[3]).toMatchObject({ cadastre_id: '2480_TOLVMANSGÅRDEN_4', heated_area_m2: 1250 });
    const rejects = await pipeline.pool.query(`SELECT reason FROM source_reject WHERE source_id = 'se-energy' ORDER BY position`);
    expect(rejects.rows.map((r) => r.reason)).toContainEqual(expect.stringMatching(/duplicate key certificate_id=123456789 \(first at position 1\)/));
    expect(rejects.rows).toHaveLength(14);
  });

  it('changes nothing when the same bundle is loaded again, forced or not', async () => {
    const before = (await pipeline.pool.query(`SELECT md5(string_agg(t::text, '|' ORDER BY certificate_id)) AS d FROM energy_certificate t WHERE country = 'SE'`)).rows[0].d;
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-energy', input: bundle });
    expect(sourceOf(again, 'se-energy')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-energy', input: bundle, force: true });
    expect(sourceOf(forced, 'se-energy')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    const after = (await pipeline.pool.query(`SELECT md5(string_agg(t::text, '|' ORDER BY certificate_id)) AS d FROM energy_certificate t WHERE country = 'SE'`)).rows[0].d;
    expect(after).toBe(before);
  });
});
