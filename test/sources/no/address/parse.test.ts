import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readAddressCsv } from '../../../../sources/no/address/parse.js';
import { openInput } from '../../../../sources/formats/open-input.js';
import type { ParsedRecord } from '../../../../sources/source-adapter.js';
import { REAL_ADDRESS_ZIP } from '../../../support/real-data.js';

async function readAll(input: Readable | string | Buffer, fileName = 'matrikkelenAdresse.csv'): Promise<ParsedRecord[]> {
  const stream = typeof input === 'string' || Buffer.isBuffer(input) ? Readable.from([Buffer.from(input)]) : input;
  const records: ParsedRecord[] = [];
  for await (const batch of readAddressCsv(stream, fileName)) records.push(...batch);
  return records;
}

const rows = (records: ParsedRecord[]) => records.filter((r) => r.kind === 'row') as Extract<ParsedRecord, { kind: 'row' }>[];
const rejects = (records: ParsedRecord[]) => records.filter((r) => r.kind === 'reject') as Extract<ParsedRecord, { kind: 'reject' }>[];

// Real 32-column rows (2019 layout, pre-2020 municipality numbers) as quoted in the reference.
const HEADER_32 =
  'lokalid;kommunenummer;kommunenavn;adressetype;adressetilleggsnavn;adressetilleggsnavnKilde;adressekode;adressenavn;nummer;bokstav;gardsnummer;bruksnummer;festenummer;undernummer;adresseTekst;adresseTekstUtenAdressetilleggsnavn;EPSG-kode;Nord;Øst;postnummer;poststed;grunnkretsnummer;grunnkretsnavn;soknenummer;soknenavn;organisasjonsnummer;tettstednummer;tettstednavn;valgkretsnummer;valgkretsnavn;oppdateringsdato;datauttaksdato';
const ROWS_32 = [
  '87033120;0125;EIDSBERG;vegadresse;;;1850;Bergheimveien;10;B;57;14;;;Bergheimveien 10B;Bergheimveien 10B;25833;6607468.72;293551.15;1850;MYSEN;01250508;KIRKÅS/ENGA;02030103;Mysen;976985915;0121;Mysen;2;EIDSBERG;27.10.2013 01:00:00;24.03.2019 08:23:40',
  '457186129;0111;HVALER;vegadresse;;;1295;Skjelsbutoppen;3;;53;324;;;Skjelsbutoppen 3;Skjelsbutoppen 3;25833;6558142.13;265619.61;1684;VESTERØY;01110205;SKJELSBU/LANGEKIL;02010801;Hvaler;976985729;;;2;VESTRE;03.03.2017 09:52:00;24.03.2019 08:19:47',
];
const HEADER_37 =
  'lokalId;kommunenummer;kommunenavn;adressetype;adressetilleggsnavn;adressetilleggsnavnKilde;adressekode;adressenavn;nummer;bokstav;gardsnummer;bruksnummer;festenummer;undernummer;adresseTekst;adresseTekstUtenAdressetilleggsnavn;EPSG-kode;Nord;Øst;postnummer;poststed;oppdateringsdato;datauttaksdato;adresseId;uuidAdresse;atkomstId;uuidAtkomst;atkomstNord;atkomstØst;sommeratkomstId;uuidSommeratkomst;sommeratkomstNord;sommeratkomstØst;vinteratkomstId;uuidVinteratkomst;vinteratkomstNord;vinteratkomstØst';

describe('Matrikkelen Adresse CSV', () => {
  it('reads every row of the real 46-column extract, none rejected', async () => {
    const input = await openInput(REAL_ADDRESS_ZIP, /\.csv$/i);
    expect(input.fileName).toBe('matrikkelen.csv');
    const records = await readAll(input.stream, input.fileName);
    expect(rejects(records)).toEqual([]);
    expect(rows(records)).toHaveLength(47);
    const first = rows(records)[0];
    expect(first.position).toBe(2); // line 2: the header is line 1
    expect(first.values.slice(0, 13)).toEqual([
      '219136687', '4204-97-90-0-0', '4204', 'KRISTIANSAND', 'vegadresse', '18981', 'Tyrihansveien', 38, null, null, 'Tyrihansveien 38', '4638', 'KRISTIANSAND S',
    ]);
    expect(first.values[15]).toBe(25833);
    expect(first.values[16]).toBe('2020-06-15 17:37:59');
  });

  it('reads the 32-column 2019 layout by header name, with letters and leading zeros kept', async () => {
    const records = await readAll([HEADER_32, ...ROWS_32].join('\n'));
    expect(rejects(records)).toEqual([]);
    const [eidsberg, hvaler] = rows(records);
    expect(eidsberg.values.slice(0, 11)).toEqual(['87033120', '0125-57-14-0-0', '0125', 'EIDSBERG', 'vegadresse', '1850', 'Bergheimveien', 10, 'B', null, 'Bergheimveien 10B']);
    expect(hvaler.values[11]).toBe('1684');
    // PROJ's cs2cs EPSG:25833 → EPSG:4326 for Øst 265619.61 Nord 6558142.13: 59.097911 N, 10.907170 E.
    expect(Number(hvaler.values[13])).toBeCloseTo(10.90717, 5);
    expect(Number(hvaler.values[14])).toBeCloseTo(59.097911, 5);
  });

  it('reads the 37-column Vegadresse layout (lokalId capitalised)', async () => {
    const row = '900001;3207;NORDRE FOLLO;vegadresse;;;25440;Myrvollveien;5;C;243;898;;;Myrvollveien 5C;Myrvollveien 5C;25833;6630000.00;266000.00;1415;OPPEGÅRD;01.01.2024 00:00:00;02.01.2024 05:00:00;900001;uuid;;;;;;;;;;;;';
    const [only] = rows(await readAll(`${HEADER_37}\n${row}`));
    expect(only.values.slice(0, 3)).toEqual(['900001', '3207-243-898-0-0', '3207']);
  });

  it('accepts the 4258 (lat/lon) variant: Nord is latitude, Øst longitude', async () => {
    const row = ROWS_32[0].replace('25833;6607468.72;293551.15', '4258;59.6070000;11.2640000');
    const [only] = rows(await readAll(`${HEADER_32}\n${row}`));
    expect(only.values.slice(13, 15)).toEqual(['11.2640000', '59.6070000']);
  });

  it('fails the whole file on an unknown header, naming the missing columns', async () => {
    await expect(readAll('id;name;x;y\n1;a;2;3')).rejects.toThrow(/unknown header: missing column\(s\) lokalid, kommunenummer/);
  });

  it('fails a Latin-1 file with the byte offset instead of loading mangled names', async () => {
    const latin1 = Buffer.from(`${HEADER_32}\n${ROWS_32[1]}`, 'latin1');
    await expect(readAll(latin1)).rejects.toThrow(/is not valid UTF-8 near byte \d+ \(is it Latin-1/);
  });

  it('fails an empty file', async () => {
    await expect(readAll('')).rejects.toThrow(/empty: no header line/);
  });

  it('quarantines each bad row with its line number, reason and raw text', async () => {
    const bad = [
      ROWS_32[0].replace('6607468.72', 'abc'),
      ROWS_32[0].replace('25833;', '9999;'),
      ROWS_32[0].replace('6607468.72;293551.15', '293551.15;6607468.72'),
      ROWS_32[0].replace(';57;14;', ';;14;'),
      ROWS_32[0].replace('87033120', ''),
      ROWS_32[0].replace('293551.15', '1993551.15'),
      ROWS_32[0].split(';').slice(0, 20).join(';'),
      ROWS_32[0].replace('27.10.2013 01:00:00', '2013-10-27'),
    ];
    const records = await readAll([HEADER_32, ...bad, ROWS_32[1]].join('\n'));
    expect(rows(records).map((r) => r.values[0])).toEqual(['457186129']);
    expect(rejects(records).map((r) => [r.position, r.reason])).toEqual([
      [2, 'Nord "abc" is not a coordinate'],
      [3, 'EPSG:9999 is not a supported coordinate reference system'],
      [4, 'Nord 293551.15 is smaller than Øst 6607468.72: the coordinates look swapped'],
      [5, 'gardsnummer is missing'],
      [6, 'lokalid "" is not a register id'],
      [7, expect.stringMatching(/^Nord 6607468.72 Øst 1993551.15 in EPSG:25833 lies outside Norway/)],
      [8, 'row has 20 columns, the header has 32'],
      [9, 'oppdateringsdato "2013-10-27" is not dd.MM.yyyy HH:mm:ss'],
    ]);
    expect(rejects(records)[0].raw).toBe(bad[0]);
  });

  it('pads a postal code and municipality number that lost their leading zero', async () => {
    const row = ROWS_32[0].replace(';0125;', ';125;').replace(';1850;MYSEN;', ';850;MYSEN;');
    const [only] = rows(await readAll(`${HEADER_32}\n${row}`));
    expect(only.values[2]).toBe('0125');
    expect(only.values[11]).toBe('0850');
  });
});
