import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seBusiness } from '../../../../sources/se/business/adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { parseAll, rowObject } from '../parse-all.js';
import { writeTarBundle, zipOf } from '../tar-bundle.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/se/business');
const BOLAGSVERKET = 'bolagsverket_bulkfil.txt';
const SCB = 'scb_bulkfil_JE_20261115T000000_1.txt';
const WORKPLACES = 'scb_arbetsstallen_20261115.txt';

let dir: string;
let bundle: string;
const fixture = (name: string) => readFile(path.join(FIXTURES, name));

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'se-business-'));
  bundle = await writeTarBundle(path.join(dir, 'se_foretag_0000_bolagsverket_scb.tar'), [
    { name: BOLAGSVERKET, content: await fixture(BOLAGSVERKET) },
    { name: SCB, content: await fixture(SCB) },
    { name: WORKPLACES, content: await fixture(WORKPLACES) },
  ]);
});

describe('se-business parsers', () => {
  it('decodes Bolagsverket $ subfields and | repeats', async () => {
    const { rows } = await parseAll(seBusiness, path.join(FIXTURES, BOLAGSVERKET));
    const byKey = new Map(rows.toReversed().map((r) => [r.values[1], rowObject(seBusiness, r.values)]));
    expect(byKey.get('5566778899')).toMatchObject({
      record_kind: 'BOLAGSVERKET', org_id: '5566778899', identity_kind: 'ORGNR', name: 'Exempel Sverige AB', legal_form: 'AB', name_protection_no: '1',
      registered_date: '2020-01-02', ongoing_procedure: 'LI 2026-04-01', address_lines: ['Box 1'], postal_code: '11122', postal_place: 'STOCKHOLM', address_country: 'SE',
    });
    // The company name wins over a secondary name; an empty street leaves only the c/o line.
    expect(byKey.get('5560125790')).toMatchObject({ name: 'Aktiebolaget Volvo', address_lines: ['c/o Ekonomi'], postal_code: '40508', business_description: 'Tillverkning av motorfordon; försäljning' });
    // One person, two sole-trader registrations: two companies.
    expect(byKey.get('6001011235-1')).toMatchObject({ identity_kind: 'PERSON', join_id: '6001011235', name: 'Åsas Hårdesign', legal_form: 'E' });
    expect(byKey.get('6001011235-2')).toMatchObject({ name: 'Åsas Catering', address_lines: null });
    expect(byKey.get('5567037485')).toMatchObject({ deleted_date: '2019-05-31', deregistration_reason: 'LIKV', address_country: 'NO', postal_code: '0150' });
  });

  it('rejects each malformed Bolagsverket row with its reason', async () => {
    const { rows, rejects } = await parseAll(seBusiness, path.join(FIXTURES, BOLAGSVERKET));
    expect(rows.map((r) => r.position)).toEqual([2, 3, 4, 5, 6, 14]);
    expect(rejects.map((r) => `${r.position}: ${r.reason.replace(/^\S+ line \d+: /, '')}`)).toEqual([
      '7: organisationsidentitet "5565475489" is not <number>$<type>',
      '8: organisationsidentitet "5591234567" fails its check digit',
      '9: organisationsform "AB" is not a ORGFO code',
      '10: postadress "Storgatan 1$STOCKHOLM$11122" has 3 subfields, expected 5 (utdelningsadress$coAdress$postort$postnummer$land)',
      '11: organisationsnamn is empty',
      '12: organisationsidentitet "8503154562$PERSON-IDORG" is a sole trader without namnskyddslopnummer',
      expect.stringMatching(/^13: unreadable line: Invalid Closing Quote/),
    ]);
  });

  it('reads SCB Latin-1 TAB files: SNI as NACE, 12-digit PeOrgNr, workplaces', async () => {
    // SCB's files load only beside Bolagsverket's (companies come from there).
    const withScb = await writeTarBundle(path.join(dir, 'bv-scb.tar'), [{ name: BOLAGSVERKET, content: await fixture(BOLAGSVERKET) }, { name: SCB, content: await fixture(SCB) }]);
    const parsed = await parseAll(seBusiness, withScb);
    const scb = { rows: parsed.rows.filter((r) => r.values[0] === 'SCB'), rejects: parsed.rejects.filter((r) => r.reason.startsWith(SCB)) };
    const byKey = new Map(scb.rows.map((r) => [r.values[1], rowObject(seBusiness, r.values)]));
    expect(byKey.get('5566778899')).toMatchObject({ record_kind: 'SCB', nace_code: '62.010', secondary_nace_codes: ['62.020'], legal_form: 'SCB-49', registered_date: '2020-01-02', address_lines: ['Sveavägen 44'] });
    expect(byKey.get('6001011235')).toMatchObject({ identity_kind: 'PERSON', name: 'Åsas Hårdesign', postal_code: '90326', postal_place: 'UMEÅ' });
    expect(byKey.get('2021005489')).toMatchObject({ name: 'Bostadsrättsföreningen Björken', address_lines: ['c/o Förvaltning AB', 'Björkvägen 7'], nace_code: '68.204' });
    expect(byKey.get('5560125790')).toMatchObject({ secondary_nace_codes: [] });
    expect(scb.rejects.map((r) => `${r.position - 1_000_000_000}: ${r.reason.replace(/^\S+ line \d+: /, '')}`)).toEqual([
      '6: PeOrgNr "5566778899" is not 12 digits starting 16 (legal person) or a century',
      '7: Ng1 "6201" is not a five-digit SNI 2007 code',
      '8: PostNr "1113" is not a five-digit postal code',
    ]);
    const all = await parseAll(seBusiness, bundle);
    const workplaces = { rows: all.rows.filter((r) => r.values[0] === 'WORKPLACE'), rejects: all.rejects.filter((r) => r.reason.startsWith(WORKPLACES)) };
    expect(rowObject(seBusiness, workplaces.rows[1].values)).toMatchObject({
      record_kind: 'WORKPLACE', record_key: '12345679', join_id: '5566778899', name: 'Exempel Göteborg', register_status: 'ACTIVE', municipality_code: '1480', started_date: '2021-03-01',
    });
    expect(workplaces.rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/Arbetsställestatus "5" is not 0, 1 or 9/)]);
  });

  it('refuses SCB files re-saved as UTF-8 and Bolagsverket files saved as Latin-1, instead of loading mojibake', async () => {
    const scbUtf8 = await writeTarBundle(path.join(dir, 'scb-utf8.tar'), [
      { name: BOLAGSVERKET, content: await fixture(BOLAGSVERKET) },
      { name: SCB, content: Buffer.from((await fixture(SCB)).toString('latin1'), 'utf8') },
    ]);
    await expect(parseAll(seBusiness, scbUtf8)).rejects.toThrow(/looks UTF-8 encoded .* delivered in Latin-1; refusing to load it as mojibake/);
    await writeFile(path.join(dir, `latin1-${BOLAGSVERKET}`), Buffer.from((await fixture(BOLAGSVERKET)).toString('utf8'), 'latin1'));
    await expect(parseAll(seBusiness, path.join(dir, `latin1-${BOLAGSVERKET}`))).rejects.toThrow(/is not valid UTF-8 near byte \d+ \(is it Latin-1/);
  });

  it("reads the registers' own zip downloads inside the tar, every part of a split SCB file", async () => {
    const scb = (await fixture(SCB)).toString('latin1').split('\r\n').filter(Boolean);
    const [header, ...rows] = scb;
    const part = (lines: string[]) => Buffer.from(`${[header, ...lines].join('\r\n')}\r\n`, 'latin1');
    const downloads = await writeTarBundle(path.join(dir, 'downloads.tar'), [
      { name: 'bolagsverket_bulkfil.zip', content: await zipOf([{ name: BOLAGSVERKET, content: await fixture(BOLAGSVERKET) }]) },
      { name: 'scb_bulkfil.zip', content: await zipOf([{ name: 'scb_bulkfil_JE_20261115T000000_1.txt', content: part(rows.slice(0, 2)) }, { name: 'scb_bulkfil_JE_20261115T000000_2.txt', content: part(rows.slice(2)) }]) },
    ]);
    const { rows: parsed, rejects } = await parseAll(seBusiness, downloads);
    const direct = await parseAll(seBusiness, await writeTarBundle(path.join(dir, 'direct.tar'), [
      { name: BOLAGSVERKET, content: await fixture(BOLAGSVERKET) }, { name: SCB, content: await fixture(SCB) },
    ]));
    expect(parsed.map((r) => r.values)).toEqual(direct.rows.map((r) => r.values));
    expect(parsed.filter((r) => r.values[0] === 'SCB')).toHaveLength(4);
    const withoutPlace = (reason: string) => reason.replace(/^\S+ line \d+: /, '');
    expect(rejects.map((r) => withoutPlace(r.reason))).toEqual(direct.rejects.map((r) => withoutPlace(r.reason)));
    // The second part's rows are read too, and its rejects name that part.
    expect(rejects.filter((r) => r.reason.startsWith('scb_bulkfil_JE_20261115T000000_2.txt line '))).toHaveLength(3);

    // In a stage, a zip is spooled (for random access) into the stage's scratch folder, not /tmp, and removed after.
    const scratchDir = await mkdtemp(path.join(dir, 'scratch-'));
    const seenInScratch = new Set<string>();
    let staged = 0;
    for await (const batch of seBusiness.parse(createReadStream(downloads), { fileName: 'downloads.tar', artifactPath: downloads, scratchDir })) {
      for (const name of await readdir(scratchDir)) seenInScratch.add(name);
      staged += batch.length;
    }
    expect(staged).toBe(parsed.length + rejects.length);
    expect(seenInScratch.size).toBeGreaterThan(0);
    expect([...seenInScratch].every((name) => name.startsWith('zip-member-'))).toBe(true);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it('fails a bundle without the Bolagsverket file, and a file of unknown header', async () => {
    const scbOnly = await writeTarBundle(path.join(dir, 'scb-only.tar'), [{ name: SCB, content: await fixture(SCB) }]);
    await expect(parseAll(seBusiness, scbOnly)).rejects.toThrow(/holds no Bolagsverket bulk file/);
    await writeFile(path.join(dir, 'bolagsverket_wrong.txt'), 'orgnr;namn\n"5566778899";"X"\n');
    await expect(parseAll(seBusiness, path.join(dir, 'bolagsverket_wrong.txt'))).rejects.toThrow(/unknown header, missing column\(s\) organisationsidentitet/);
  });
});

describe('se-business backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ NORDPROP_MAX_REJECT_RATE: '0.9' });
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  const companyDigest = async () =>
    (await pipeline.pool.query(
      `SELECT (SELECT md5(string_agg(c::text, '|' ORDER BY org_id)) FROM company c WHERE org_scheme = '0007') ||
              (SELECT md5(string_agg(a::text, '|' ORDER BY org_id, address_kind, ordinal)) FROM company_address a WHERE org_scheme = '0007') ||
              (SELECT md5(string_agg(w::text, '|' ORDER BY workplace_id)) FROM company_workplace w) AS d`,
    )).rows[0].d;

  it('merges Bolagsverket and SCB into one company per organisation, with workplaces and visiting addresses', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-business', input: bundle });
    expect(sourceOf(summary, 'se-business')).toMatchObject({ outcome: 'published', inserted: 6, updated: 0, deleted: 0 });
    const companies = (await pipeline.pool.query(
      `SELECT org_id, name, legal_form, nace_code, registered_date::text, deleted_date::text, country FROM company WHERE org_scheme = '0007' ORDER BY org_id`,
    )).rows;
    expect(companies).toEqual([
      { org_id: '2021005489', name: 'Bostadsrättsföreningen Björken', legal_form: 'SCB-53', nace_code: '68.204', registered_date: '1998-03-15', deleted_date: null, country: 'SE' },
      { org_id: '5560125790', name: 'Aktiebolaget Volvo', legal_form: 'AB', nace_code: '29.100', registered_date: '1927-08-10', deleted_date: null, country: 'SE' },
      { org_id: '5566778899', name: 'Exempel Sverige AB', legal_form: 'AB', nace_code: '62.010', registered_date: '2020-01-02', deleted_date: null, country: 'SE' },
      { org_id: '5567037485', name: 'Avvecklat Bolag AB', legal_form: 'AB', nace_code: null, registered_date: '2010-01-01', deleted_date: '2019-05-31', country: 'SE' },
      { org_id: '6001011235-1', name: 'Åsas Hårdesign', legal_form: 'E', nace_code: '96.021', registered_date: '2001-05-01', deleted_date: null, country: 'SE' },
      { org_id: '6001011235-2', name: 'Åsas Catering', legal_form: 'E', nace_code: '96.021', registered_date: '2015-09-01', deleted_date: null, country: 'SE' },
    ]);
    const addresses = (await pipeline.pool.query(
      `SELECT address_kind, ordinal, country, address_lines, postal_code, postal_place, municipality_code FROM company_address WHERE org_id = '5566778899' ORDER BY address_kind, ordinal`,
    )).rows;
    expect(addresses).toEqual([
      { address_kind: 'BUSINESS', ordinal: 0, country: 'SE', address_lines: ['Sveavägen 44'], postal_code: '11134', postal_place: 'STOCKHOLM', municipality_code: null },
      { address_kind: 'POSTAL', ordinal: 0, country: 'SE', address_lines: ['Box 1'], postal_code: '11122', postal_place: 'STOCKHOLM', municipality_code: null },
      { address_kind: 'VISITING', ordinal: 0, country: 'SE', address_lines: ['Sveavägen 44'], postal_code: '11134', postal_place: 'STOCKHOLM', municipality_code: '0180' },
      { address_kind: 'VISITING', ordinal: 1, country: 'SE', address_lines: ['Kungsgatan 5'], postal_code: '41119', postal_place: 'GÖTEBORG', municipality_code: '1480' },
    ]);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM company_address WHERE org_scheme = '0007'`)).rows[0].n).toBe(12);
    expect((await pipeline.pool.query(`SELECT workplace_id, org_id, name, status FROM company_workplace ORDER BY workplace_id`)).rows).toEqual([
      { workplace_id: '12345678', org_id: '5566778899', name: 'Exempel Sverige AB, huvudkontor', status: 'ACTIVE' },
      { workplace_id: '12345679', org_id: '5566778899', name: 'Exempel Göteborg', status: 'ACTIVE' },
      { workplace_id: '87654321', org_id: '5560125790', name: 'Volvo Torslanda', status: 'ACTIVE' },
    ]);
    const reasons = (await pipeline.pool.query(`SELECT reason FROM source_reject WHERE source_id = 'se-business' ORDER BY position`)).rows.map((r) => r.reason);
    expect(reasons).toHaveLength(7 + 1 + 3 + 1 + 1);
    expect(reasons).toContainEqual(expect.stringMatching(/duplicate key record_kind,record_key=BOLAGSVERKET,5566778899 \(first at position 2\)/));
    expect(reasons).toContainEqual('workplace 11112222 belongs to organisation 5565475489, which neither Bolagsverket\'s nor SCB\'s file has');
  });

  it('changes nothing on the same bundle again; a changed workplace rewrites only its company', async () => {
    const before = await companyDigest();
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-business', input: bundle });
    expect(sourceOf(again, 'se-business')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-business', input: bundle, force: true });
    expect(sourceOf(forced, 'se-business')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await companyDigest()).toBe(before);

    const moved = Buffer.from((await fixture(WORKPLACES)).toString('latin1').replace('Torslandavägen 1', 'Torslandavägen 3'), 'latin1');
    const changed = await writeTarBundle(path.join(dir, 'se_foretag_0000_bolagsverket_scb-2.tar'), [
      { name: BOLAGSVERKET, content: await fixture(BOLAGSVERKET) },
      { name: SCB, content: await fixture(SCB) },
      { name: WORKPLACES, content: moved },
    ]);
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'se-business', input: changed });
    expect(sourceOf(summary, 'se-business')).toMatchObject({ outcome: 'published', inserted: 0, updated: 1, deleted: 0 });
    const visiting = (await pipeline.pool.query(`SELECT address_lines FROM company_address WHERE org_id = '5560125790' AND address_kind = 'VISITING'`)).rows;
    expect(visiting).toEqual([{ address_lines: ['Torslandavägen 3'] }]);
  });
});
