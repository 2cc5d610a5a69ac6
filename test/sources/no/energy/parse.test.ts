import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ENERGY_STAGING_COLUMNS, readEnergyCsv } from '../../../../sources/no/energy/parse.js';
import type { CellValue, ParsedRecord } from '../../../../sources/source-adapter.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/energy');

async function readAll(input: Readable | string | Buffer, fileName = 'enova.csv'): Promise<ParsedRecord[]> {
  const stream = typeof input === 'string' || Buffer.isBuffer(input) ? Readable.from([Buffer.from(input)]) : input;
  const records: ParsedRecord[] = [];
  for await (const batch of readEnergyCsv(stream, fileName)) records.push(...batch);
  return records;
}
const readFixture = (name: string) => readAll(createReadStream(path.join(FIXTURES, name)), name);

type Row = Extract<ParsedRecord, { kind: 'row' }>;
type Reject = Extract<ParsedRecord, { kind: 'reject' }>;
const rows = (records: ParsedRecord[]) => records.filter((r): r is Row => r.kind === 'row');
const rejects = (records: ParsedRecord[]) => records.filter((r): r is Reject => r.kind === 'reject');
/** A staged row as column → value, so assertions name what they check. */
const named = (row: Row): Record<string, CellValue> => Object.fromEntries(ENERGY_STAGING_COLUMNS.map((c, i) => [c.name, row.values[i]]));

const HEADER =
  'Knr,Gnr,Bnr,Snr,Fnr,Andelsnummer,Bygningsnummer,GateAdresse,Postnummer,Poststed,BruksEnhetsNummer,Organisasjonsnummer,Bygningskategori,Byggear,Energikarakter,Oppvarmingskarakter,Utstedelsesdato,TypeRegistrering,Attestnummer,BeregnetLevertEnergiTotaltkWhm2,BeregnetFossilandel,Materialvalg,HarEnergiVurdering,EnergiVurderingDato';

describe('Enova energiattest CSV', () => {
  it('reads every row of a file in the real layout (CRLF, quoted decimal commas, 7 fractional seconds)', async () => {
    const records = await readFixture('enova-2023.csv');
    expect(rejects(records)).toEqual([]);
    expect(rows(records).map((r) => r.position)).toEqual([2, 3, 4, 5, 6, 7]);
    const [oslo, bergen, trondheim, follo, stavanger, mock] = rows(records).map(named);

    // Knr 301 and Postnummer 356 lost their leading zeros; Snr 12 comes before Fnr 0 in the file.
    expect(oslo).toMatchObject({
      certificate_id: 'Energiattest-2023-000101', cadastre_id: '0301-208-327-0-12', municipality_code: '0301', building_number: '80012345',
      postal_code: '0356', postal_place: 'OSLO', unit_number: 'H0203', label: 'D', heating_grade: 'ORANGE',
      issued_date: '2023-03-14', issued_at: '2023-03-14 10:22:31.123456', fossil_share: 0.05, delivered_energy_kwh_m2: 182.4,
      construction_year: 1936, has_energy_assessment: false, energy_assessment_date: null,
    });
    // Organisasjonsnummer written "### ### ###"; an energy assessment with its date.
    expect(bergen).toMatchObject({
      cadastre_id: '4601-164-1203-0-0', organization_number: '916627939', unit_number: null, heating_grade: 'YELLOW',
      fossil_share: 0.61, delivered_energy_kwh_m2: 143.75, has_energy_assessment: true, energy_assessment_date: '2023-11-20', registration_type: 'Advanced',
    });
    // A quoted address with a comma in it stays one field.
    expect(trondheim).toMatchObject({ address_text: 'Elgeseter gate 10, oppgang B', issued_at: '2023-12-31 23:45:20.000000', building_category: 'Småhus' });
    expect(follo).toMatchObject({ label: 'B', heating_grade: 'LIGHT_GREEN', share_number: '12', fossil_share: 0, delivered_energy_kwh_m2: 96 });
    expect(stavanger).toMatchObject({ cadastre_id: '1103-35-12-1-0', heating_grade: 'RED', label: 'G', has_energy_assessment: null });
    // The reference's own mock row (with its placeholder org number left out): Snr 33, Fnr 44.
    expect(mock).toMatchObject({ cadastre_id: '1234-11-22-44-33', building_number: '11223344', heating_grade: 'GREEN', certificate_id: 'randomguidgoeshere' });
  });

  it('rejects each malformed row with its line and reason, and keeps the good ones', async () => {
    const records = await readFixture('enova-malformed.csv');
    const reasons = Object.fromEntries(rejects(records).map((r) => [r.position, r.reason]));
    expect(reasons).toEqual({
      2: 'kommunenummer "30" is not four digits',
      3: 'Postnummer "12345" is not a postal code',
      // An unquoted decimal comma splits the field in two.
      4: 'row has 25 columns, the header has 24',
      5: 'Utstedelsesdato "2023-02-30T10:00:00.0000000" is not a calendar date',
      6: 'Utstedelsesdato "31.12.2023 23:45:20" is not a timestamp (yyyy-MM-ddTHH:mm:ss.fffffff)',
      7: 'Oppvarmingskarakter "Purple" is not a heating-grade colour (Red, Orange, Yellow, LightGreen, Green)',
      8: 'Energikarakter "H" is not an energy label A–G',
      9: 'gardsnummer is missing',
      10: 'Organisasjonsnummer "org" is not nine digits',
      11: 'Byggear "19x6" is not a year',
      12: 'BeregnetLevertEnergiTotaltkWhm2 "2x4.9" is not a decimal number',
      13: 'Attestnummer is empty',
    });
    expect(rejects(records).find((r) => r.position === 7)?.raw).toContain(',Purple,');
    // Two rows share an Attestnummer: both parse; validation quarantines the second as a duplicate key.
    expect(rows(records).map((r) => [r.position, r.values[0]])).toEqual([
      [14, 'Energiattest-2023-900013'],
      [15, 'Energiattest-2023-900013'],
    ]);
  });

  it('skips a repeated header (with its BOM), so yearly files can be concatenated, and positions a record spanning lines at its last line', async () => {
    const row = (id: string, address: string) => `301,1,2,0,0,,1,${address},150,OSLO,H0101,,Småhus,1976,E,Yellow,2023-12-31T23:45:20.0000000,Simple,${id},224.93,"0,61",Tre,False,`;
    const text = [`\uFEFF${HEADER}`, row('A1', '"Vei 1\nbakgården"'), `\uFEFF${HEADER}`, row('A2', 'Vei 2')].join('\n');
    const records = await readAll(text);
    expect(rejects(records)).toEqual([]);
    expect(rows(records).map((r) => [r.position, r.values[0], r.values[8]])).toEqual([
      [3, 'A1', 'Vei 1\nbakgården'],
      [5, 'A2', 'Vei 2'],
    ]);
  });

  it('rejects a row csv-parse cannot read (a stray quote) and reads on', async () => {
    const row = (id: string, address: string) => `301,1,2,0,0,,1,${address},150,OSLO,H0101,,Småhus,1976,E,Yellow,2023-12-31T23:45:20.0000000,Simple,${id},224.93,"0,61",Tre,False,`;
    const records = await readAll([HEADER, row('A1', 'ok'), row('A2', '"Vei 2'), row('A3', 'Vei "3" B'), row('A4', 'ok')].join('\n'));
    expect(rows(records).map((r) => [r.position, r.values[0]])).toEqual([[2, 'A1'], [5, 'A4']]);
    expect(rejects(records).map((r) => [r.position, r.reason.split(':')[0] + ': ' + r.reason.split(':')[1].trim()])).toEqual([
      [3, 'unreadable CSV record: Invalid Closing Quote'],
      [4, 'unreadable CSV record: Invalid Opening Quote'],
    ]);
    // csv-parse hands over the record's text up to where it stopped reading it.
    expect(rejects(records)[1].raw).toContain('301,1,2,0,0,,1,Vei "');
  });

  it('fails a file with an unknown header, a non-UTF-8 file and an empty file with clear messages', async () => {
    await expect(readAll('Kommune;Gnr;Bnr\n0301;1;2', 'wrong.csv')).rejects.toThrow(/wrong\.csv: unknown header, missing column\(s\) Knr, .*energiattest CSV/);
    const latin1 = Buffer.concat([Buffer.from(`${HEADER}\n301,1,2,0,0,,1,Vei,150,OSLO,H0101,,Sm`), Buffer.from([0xe5]), Buffer.from('hus,1976,E,Yellow,2023-12-31T23:45:20.0000000,Simple,A,1,"0,6",Tre,False,')]);
    await expect(readAll(latin1, 'latin1.csv')).rejects.toThrow(/latin1\.csv is not valid UTF-8 near byte/);
    await expect(readAll('', 'empty.csv')).rejects.toThrow(/empty\.csv is empty: no header line/);
  });
});
