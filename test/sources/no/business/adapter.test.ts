import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputFormatError } from '../../../../sources/formats/input-error.js';
import { noBusiness } from '../../../../sources/no/business/adapter.js';
import { BUSINESS_STAGING_COLUMNS } from '../../../../sources/no/business/record.js';
import { orgNumberProblem } from '../../../../sources/no/org-number.js';
import type { CellValue, ParsedRecord } from '../../../../sources/source-adapter.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/business');

async function parse(bytes: Buffer | string, fileName: string): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  for await (const batch of noBusiness.parse(Readable.from([Buffer.from(bytes)]), { fileName })) records.push(...batch);
  return records;
}
const parseFixture = async (name: string) => parse(await readFile(path.join(FIXTURES, name)), name);

type Row = Extract<ParsedRecord, { kind: 'row' }>;
type Reject = Extract<ParsedRecord, { kind: 'reject' }>;
const rows = (records: ParsedRecord[]) => records.filter((r): r is Row => r.kind === 'row');
const rejects = (records: ParsedRecord[]) => records.filter((r): r is Reject => r.kind === 'reject');
const named = (row: Row): Record<string, CellValue> => Object.fromEntries(BUSINESS_STAGING_COLUMNS.map((c, i) => [c.name, row.values[i]]));
const addressesOf = (row: Row) => JSON.parse(named(row).addresses as string) as Record<string, unknown>[];

describe('organisation numbers', () => {
  it('accept the real numbers and refuse a wrong check digit, a wrong length and an impossible check digit', () => {
    for (const valid of ['995858266', '916627939', '995849364', '927818310']) expect(orgNumberProblem(valid)).toBeNull();
    expect(orgNumberProblem('916627938')).toMatch(/modulus-11/);
    expect(orgNumberProblem('12345678')).toMatch(/nine digits/);
    // 91234567x: the weighted sum leaves remainder 1, so the check digit would be 10.
    for (let d = 0; d <= 9; d++) expect(orgNumberProblem(`91234567${d}`)).toMatch(/modulus-11/);
  });
});

describe('Enhetsregisteret full download (JSON)', () => {
  it('reads the real enhet and underenhet records of the reference', async () => {
    const records = await parseFixture('real-records.json');
    expect(rejects(records)).toEqual([]);
    const [sub, main] = rows(records);
    expect(sub.position).toBe(1);
    expect(named(sub)).toMatchObject({
      org_id: '995858266', update_id: 0, change: 'upsert', is_sub_unit: true, name: ':-) PROSJEKTER', parent_org_id: '995849364',
      legal_form: 'BEDR', nace_code: '70.220', nace_name: 'Bedriftsrådgivning og annen administrativ rådgivning', employees: 1,
      founded_date: '2010-07-01', registered_date: '2010-08-25', website: null, deleted_date: null,
    });
    expect(addressesOf(sub)).toEqual([
      { kind: 'BUSINESS', lines: ['Skanselien 37'], postalCode: '5034', postalPlace: 'BERGEN', municipalityCode: '4601', country: 'NO' },
    ]);
    expect(named(main)).toMatchObject({
      org_id: '916627939', is_sub_unit: false, name: '- P A L M E R A -', parent_org_id: null, legal_form: 'FLI', nace_code: '94.991',
      employees: 0, founded_date: '2015-11-01', registered_date: '2016-01-26', website: 'palmera-i-bergen.no',
    });
    expect(addressesOf(main)).toEqual([
      { kind: 'BUSINESS', lines: ['Strandgaten 208'], postalCode: '5004', postalPlace: 'BERGEN', municipalityCode: '4601', country: 'NO' },
    ]);
  });

  it('reads the same records gzipped, as lastned serves them', async () => {
    const plain = await readFile(path.join(FIXTURES, 'real-records.json'));
    expect(await parse(gzipSync(plain), 'enheter_alle.json.gz')).toEqual(await parse(plain, 'real-records.json'));
  });

  it('rejects each bad record with its position and reason, and keeps the good ones', async () => {
    const records = await parseFixture('enheter-malformed.json');
    expect(Object.fromEntries(rejects(records).map((r) => [r.position, r.reason]))).toEqual({
      2: 'organisasjonsnummer 916627938 fails the modulus-11 check digit',
      3: 'navn is missing',
      4: 'record is not a JSON object but "916627939"',
      5: 'stiftelsesdato "2015-02-30" is not a date yyyy-mm-dd',
      6: 'antallAnsatte is not a whole number of employees: "mange"',
      7: 'overordnetEnhet: organisasjonsnummer 987654321 fails the modulus-11 check digit',
      8: 'organisasjonsnummer "12345678" is not nine digits',
    });
    expect(rejects(records).find((r) => r.position === 2)?.raw).toContain('FEIL SJEKKSIFFER AS');
    const good = rows(records);
    expect(good.map((r) => r.position)).toEqual([1, 9, 10]);
    const [nordlys, swedish, deleted] = good;
    expect(addressesOf(nordlys)).toEqual([
      { kind: 'BUSINESS', lines: ['Dronningens gt. 8'], postalCode: '0150', postalPlace: 'OSLO', municipalityCode: '0301', country: 'NO' },
      { kind: 'POSTAL', lines: ['c/o Hansen Regnskap AS', 'Postboks 44 Sentrum'], postalCode: '0101', postalPlace: 'OSLO', municipalityCode: '0301', country: 'NO' },
    ]);
    expect(addressesOf(swedish)).toEqual([{ kind: 'BUSINESS', lines: ['Kungsgatan 12'], postalCode: '41101', postalPlace: 'GÖTEBORG', municipalityCode: null, country: 'SE' }]);
    expect(named(deleted)).toMatchObject({ org_id: '812345672', deleted_date: '2023-05-02' });
  });

  it('fails the file, naming it, when it is an API page instead of the download array', async () => {
    await expect(parseFixture('api-page-not-download.json')).rejects.toThrow(InputFormatError);
    await expect(parseFixture('api-page-not-download.json')).rejects.toThrow(/api-page-not-download\.json is a JSON object, not the array/);
  });

  it('fails the file on a truncated gzip, and on JSON cut off mid-array', async () => {
    const gz = gzipSync(await readFile(path.join(FIXTURES, 'real-records.json')));
    await expect(parse(gz.subarray(0, gz.length - 30), 'enheter_alle.json.gz')).rejects.toThrow(/enheter_alle\.json\.gz is a truncated or corrupt gzip file/);
    await expect(parse('[{"organisasjonsnummer":"916627939","navn":"X"},{"organ', 'cut.json')).rejects.toThrow(/cut\.json is not a JSON array of Enhetsregisteret records/);
    await expect(parse('', 'empty.json')).rejects.toThrow(/empty\.json is empty/);
  });
});

describe('Enhetsregisteret full download (CSV)', () => {
  it('reads the CSV variant to the same values as the JSON, with multi-line fields and the CSV spellings', async () => {
    const csv = await parseFixture('enheter.csv');
    const json = rows(await parseFixture('real-records.json'));
    const [palmera, nordlys] = rows(csv);
    expect(palmera.values).toEqual(json[1].values);
    expect(palmera.position).toBe(2);
    // The quoted multi-line postadresse and vedtektsfestetFormaal do not split the record (lines
    // 3 to 5; a CSV record's position is the line it ends on).
    expect(nordlys.position).toBe(5);
    expect(named(nordlys)).toMatchObject({ org_id: '920000002', employees: 12, registered_date: '2019-03-04', founded_date: '2019-02-20' });
    expect(addressesOf(nordlys)[1]).toMatchObject({ kind: 'POSTAL', lines: ['c/o Hansen Regnskap AS', 'Postboks 44 Sentrum'] });
    expect(Object.fromEntries(rejects(csv).map((r) => [r.position, r.reason]))).toEqual({
      6: 'organisasjonsnummer 916627938 fails the modulus-11 check digit',
      7: 'row has 3 fields, the header has 33',
    });
  });

  it('reads the underenheter CSV (beliggenhetsadresse, registreringsdatoIEnhetsregisteret) like the real JSON sub-unit', async () => {
    const csv = rows(await parseFixture('underenheter.csv'));
    const json = rows(await parseFixture('real-records.json'));
    expect(csv).toHaveLength(1);
    expect(csv[0].values).toEqual(json[0].values);
  });

  it('fails a CSV that is not an Enhetsregisteret file', async () => {
    await expect(parse('"kommunenummer","kommunenavn"\n"0301","Oslo"\n', 'kommuner.csv')).rejects.toThrow(/kommuner\.csv is not an Enhetsregisteret CSV/);
  });
});

describe('updates feed changes file', () => {
  const item = (id: number, orgnr: string, endringstype: string) => ({ oppdateringsid: id, dato: '2022-07-05T04:01:39.613Z', organisasjonsnummer: orgnr, endringstype });
  const line = (change: object) => `${JSON.stringify(change)}\n`;
  const real = async () => (JSON.parse(await readFile(path.join(FIXTURES, 'real-records.json'), 'utf8')) as object[])[1];

  it('stages upserts with the looked-up record, deletions with their date, removals, and rejects unknown endringstype', async () => {
    const text =
      line({ feed: 'enheter', item: item(14757180, '916627939', 'Endring'), record: await real() }) +
      line({ feed: 'enheter', item: item(14757181, '927818310', 'Sletting') }) +
      line({ feed: 'enheter', item: item(14757182, '995849364', 'Fjernet') }) +
      line({ feed: 'enheter', item: item(14757183, '916627939', 'Omdøpt') }) +
      line({ feed: 'enheter', item: item(14757184, '916627938', 'Ny') }) +
      line({ feed: 'enheter', item: item(14757185, '927818310', 'Endring'), record: { organisasjonsnummer: '927818310', slettedato: '2022-07-04', respons_klasse: 'SlettetEnhet', _links: {} } }) +
      line({ feed: 'enheter', item: item(14757187, '920000002', 'Endring'), lookupStatus: 410, record: { organisasjonsnummer: '920000002', slettedato: '2022-07-05', _links: {} } }) +
      line({ feed: 'underenheter', item: { oppdateringsid: 'x', organisasjonsnummer: '995858266', endringstype: 'Ny' } }) +
      line({ feed: 'enheter', item: item(14757186, '995849364', 'Ny') }) +
      line({ feed: 'underenheter', item: item(21390731, '995858266', 'Ukjent'), record: (JSON.parse(await readFile(path.join(FIXTURES, 'real-records.json'), 'utf8')) as object[])[0] }) +
      'not json\n';
    const records = await parse(text, 'r1.changes.jsonl');
    const staged = rows(records).map(named);
    expect(staged.map((r) => [r.org_id, r.update_id, r.change, r.deleted_date])).toEqual([
      ['916627939', 14757180, 'upsert', null],
      ['927818310', 14757181, 'delete', '2022-07-05'],
      ['995849364', 14757182, 'remove', null],
      ['927818310', 14757185, 'delete', '2022-07-04'],
      ['920000002', 14757187, 'remove', null],
      // Ukjent: something changed, the register does not say what; the unit is written as it is now.
      ['995858266', 21390731, 'upsert', null],
    ]);
    expect(staged.at(-1)).toMatchObject({ is_sub_unit: true, parent_org_id: '995849364' });
    expect(staged[0]).toMatchObject({ name: '- P A L M E R A -', is_sub_unit: false });
    expect(Object.fromEntries(rejects(records).map((r) => [r.position, r.reason]))).toEqual({
      4: 'unknown endringstype "Omdøpt" (expected Ny, Endring, Sletting, Fjernet or Ukjent)',
      5: 'organisasjonsnummer 916627938 fails the modulus-11 check digit',
      8: 'oppdateringsid "x" is not a positive whole number',
      9: 'Ny of 995849364: the register returned no record for it',
      11: expect.stringMatching(/^not valid JSON/),
    });
  });
});
