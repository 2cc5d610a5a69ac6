import { parse } from 'csv-parse/sync';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_CSV_ENTRY, generateSample, sampleParcels } from '../../sample/generate.js';
import type { SampleParcel } from '../../sample/types.js';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { parcelPolygonWgs84, pointToWgs84, readZip, tempDir } from './helpers.js';

const PARCELS = 300;
const SEED = 'csv';

type Row = Record<string, string>;

describe('address CSV (Matrikkelen Adresse, 46 columns)', () => {
  let bytes: Buffer;
  let text: string;
  let rows: Row[];
  let parcels: SampleParcel[];
  let realHeader: string;

  beforeAll(async () => {
    const result = await generateSample({ outDir: await tempDir('csv'), parcels: PARCELS, seed: SEED });
    bytes = (await readZip(result.files.addressCsvZip)).get(ADDRESS_CSV_ENTRY)!;
    text = bytes.toString('utf8');
    rows = parse(text, { delimiter: ';', columns: true, quote: false }) as Row[];
    parcels = [...sampleParcels({ parcels: PARCELS, seed: SEED })];
    const real = await readZip(REAL_ADDRESS_ZIP);
    const realCsv = real.get('Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV/matrikkelen.csv')!.toString('utf8');
    realHeader = realCsv.slice(0, realCsv.indexOf('\n'));
  });

  it('has exactly the header of the real register file', () => {
    const header = text.slice(0, text.indexOf('\n'));
    expect(realHeader.split(';')).toHaveLength(46);
    expect(header).toBe(realHeader);
  });

  it('uses the real byte format: UTF-8 without BOM, LF, no quotes, no newline at the end, 46 fields a row', () => {
    expect([...bytes.subarray(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
    expect(text.startsWith('lokalid;kommunenummer;')).toBe(true);
    expect(text).not.toContain('\r');
    expect(text).not.toContain('"');
    expect(text.endsWith('\n')).toBe(false);
    const lines = text.split('\n');
    expect(lines.length).toBe(rows.length + 1);
    for (const line of lines) expect(line.split(';')).toHaveLength(46);
  });

  it('writes the same addresses as the truth objects, in order', () => {
    const truth = parcels.flatMap((p) => p.addresses);
    expect(rows).toHaveLength(truth.length);
    rows.forEach((row, i) => {
      const a = truth[i];
      expect(row.lokalid).toBe(String(a.adresseId));
      expect(row.adresseId).toBe(row.lokalid);
      expect(Number(row['Nord'])).toBe(a.north);
      expect(Number(row['Øst'])).toBe(a.east);
      expect(row.gardsnummer).toBe(String(a.gardsnummer));
      expect(row.bruksnummer).toBe(String(a.bruksnummer));
    });
  });

  it('fills the columns like the register does', () => {
    const ids = new Set<string>();
    const uuids = new Set<string>();
    for (const row of rows) {
      expect(row['EPSG-kode']).toBe('25833');
      expect(row.kommunenummer).toMatch(/^\d{4}$/);
      expect(row.postnummer).toMatch(/^\d{4}$/);
      expect(row['Nord']).toMatch(/^\d{7}\.\d{2}$/);
      expect(row['Øst']).toMatch(/^-?\d{5,6}\.\d{2}$/);
      expect(row.oppdateringsdato).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
      expect(row.datauttaksdato).toBe('02.01.2025 05:31:17');
      expect(row.uuidAdresse).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.grunnkretsnummer.startsWith(row.kommunenummer)).toBe(true);
      expect(row.grunnkretsnummer).toMatch(/^\d{8}$/);
      expect(row.soknenummer).toMatch(/^\d{8}$/);
      expect(row.organisasjonsnummer).toMatch(/^\d{9}$/);
      for (const column of ['atkomstId', 'uuidAtkomst', 'atkomstNord', 'atkomstØst', 'vinteratkomstØst', 'adressetilleggsnavn']) {
        expect(row[column]).toBe('');
      }
      expect(row.undernummer === '' || row.adressetype === 'matrikkeladresse').toBe(true);
      ids.add(row.lokalid);
      uuids.add(row.uuidAdresse);
    }
    expect(ids.size).toBe(rows.length);
    expect(uuids.size).toBe(rows.length);
    // festenummer/undernummer are usually empty, not 0
    expect(rows.filter((r) => r.festenummer === '').length / rows.length).toBeGreaterThan(0.9);
    expect(rows.some((r) => r.festenummer === '0' || r.undernummer === '0')).toBe(false);
  });

  it('names the featured municipalities with their real numbers, names and postal regions', () => {
    const byKommune = new Map<string, Row[]>();
    for (const row of rows) byKommune.set(row.kommunenummer, [...(byKommune.get(row.kommunenummer) ?? []), row]);
    expect([...byKommune.keys()].sort()).toEqual(['0301', '3201', '4204', '4601', '5001']);
    const oslo = byKommune.get('0301')!;
    expect(new Set(oslo.map((r) => r.kommunenavn))).toEqual(new Set(['OSLO']));
    expect(oslo.every((r) => r.postnummer.startsWith('0') || r.postnummer.startsWith('1'))).toBe(true);
    expect(oslo[0].postnummer).toMatch(/^0/);
    expect(new Set(byKommune.get('4204')!.map((r) => r.kommunenavn))).toEqual(new Set(['KRISTIANSAND']));
    expect(new Set(byKommune.get('4204')!.map((r) => r.poststed))).toEqual(new Set(['KRISTIANSAND S']));
    expect(byKommune.get('4601')!.every((r) => r.postnummer.startsWith('5') && r.kommunenavn === 'BERGEN')).toBe(true);
    expect(byKommune.get('5001')!.every((r) => r.postnummer.startsWith('7'))).toBe(true);
    expect(byKommune.get('3201')!.every((r) => r.kommunenavn === 'BÆRUM')).toBe(true);
  });

  it('writes vegadresser with Norwegian street names and matrikkeladresser without', () => {
    const veg = rows.filter((r) => r.adressetype === 'vegadresse');
    expect(veg.length / rows.length).toBeGreaterThan(0.95);
    for (const r of veg) {
      expect(r.adressenavn).toMatch(/(veien|vegen|gata|bakken|stien|lia|svingen|tunet|kroken|åsen|jordet)$/);
      expect(r.adresseTekst).toBe(`${r.adressenavn} ${r.nummer}${r.bokstav}`);
      expect(r.adresseTekstUtenAdressetilleggsnavn).toBe(r.adresseTekst);
      expect(r.adressekode).toMatch(/^\d+$/);
    }
    expect(veg.some((r) => /[æøåÆØÅ]/.test(r.adressenavn))).toBe(true);
    const lettered = veg.filter((r) => r.bokstav !== '');
    expect(lettered.length).toBeGreaterThan(0);
    expect(lettered.length / veg.length).toBeLessThan(0.25);
    for (const r of rows.filter((x) => x.adressetype === 'matrikkeladresse')) {
      expect(r.adressenavn).toBe('');
      expect(r.nummer).toBe('');
      expect(r.adresseTekst).toMatch(/^\d+\/\d+(\/\d+)?(-\d+)?$/);
      expect(r.adresseTekst.startsWith(`${r.gardsnummer}/${r.bruksnummer}`)).toBe(true);
    }
  });

  it('keeps street, postal code and poststed consistent, and each house number unique', () => {
    const streetPost = new Map<string, string>();
    const codePlace = new Map<string, string>();
    const houses = new Set<string>();
    for (const r of rows.filter((x) => x.adressetype === 'vegadresse')) {
      const street = `${r.kommunenummer}|${r.adressekode}`;
      const post = `${r.adressenavn}|${r.postnummer}|${r.poststed}`;
      expect(streetPost.get(street) ?? post).toBe(post);
      streetPost.set(street, post);
      expect(codePlace.get(r.postnummer) ?? r.poststed).toBe(r.poststed);
      codePlace.set(r.postnummer, r.poststed);
      const house = `${street}|${r.nummer}|${r.bokstav}`;
      expect(houses.has(house)).toBe(false);
      houses.add(house);
    }
    // one name per street code within a municipality, and vice versa
    const names = [...streetPost.entries()].map(([street, post]) => `${street.split('|')[0]}|${post.split('|')[0]}`);
    expect(new Set(names).size).toBe(streetPost.size);
  });

  it('puts each CSV point inside the parcel of its gardsnummer/bruksnummer', () => {
    const byId = new Map(parcels.flatMap((p) => p.addresses.map((a) => [String(a.adresseId), p] as const)));
    // spot check every 7th row against the polygon, from the CSV's own columns
    for (const row of rows.filter((_, i) => i % 7 === 0)) {
      const parcel = byId.get(row.lokalid)!;
      const point = pointToWgs84([Number(row['Øst']), Number(row['Nord'])]);
      expect(booleanPointInPolygon(point, parcelPolygonWgs84(parcel), { ignoreBoundary: true })).toBe(true);
      const fest = row.festenummer === '' ? 0 : Number(row.festenummer);
      expect(
        parcel.units.some((u) => String(u.gardsnummer) === row.gardsnummer && String(u.bruksnummer) === row.bruksnummer && u.festenummer === fest),
      ).toBe(true);
      expect(parcel.kommunenummer).toBe(row.kommunenummer);
    }
  });
});
