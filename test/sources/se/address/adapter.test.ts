import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seAddress, swedishHouseNumber, swedishPostalCode } from '../../../../sources/se/address/adapter.js';
import { transformTo } from '../../../../sources/geo/reproject.js';
import { planSwedishSample, propertiesOfSwedishPlan } from '../../../../sample/se/properties.js';
import { writeSeAddressGpkg } from '../../../../sample/se/write-geopackages.js';
import { parseFile, rowObject, tempDir, writeLayer } from '../gpkg-support.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

describe('Swedish house numbers and postal codes', () => {
  it('builds the number from adressplatsnummer, bokstavstillägg and lägestillägg, or the deviating designation', () => {
    expect(swedishHouseNumber({ adressplatsnummer: '12' })).toBe('12');
    expect(swedishHouseNumber({ adressplatsnummer: '12', bokstavstillagg: 'A' })).toBe('12A');
    expect(swedishHouseNumber({ adressplatsnummer: '12', bokstavstillagg: 'B', lagestillagg: 'UH', lagestillaggsnummer: 2 })).toBe('12B UH2');
    expect(swedishHouseNumber({ adressplatsnummer: '3', lagestillagg: 'U', lagestillaggsnummer: null })).toBe('3 U');
    expect(swedishHouseNumber({ adressplatsnummer: '12', avvikerfranstandarden: 1, avvikandeadressplatsbeteckning: '12-14' })).toBe('12-14');
    expect(swedishHouseNumber({ adressplatsnummer: null })).toBeNull();
    expect(() => swedishHouseNumber({ adressplatsnummer: '1', avvikerfranstandarden: 1 })).toThrow(/avvikandeadressplatsbeteckning is empty/);
    expect(() => swedishHouseNumber({ adressplatsnummer: '1', lagestillagg: 'X' })).toThrow(/not U, UH or UV/);
  });

  it('writes postnummer as 5-digit text, 0 as none', () => {
    expect(swedishPostalCode(11128)).toBe('11128');
    expect(swedishPostalCode('981 38')).toBe('98138');
    expect(swedishPostalCode(0)).toBeNull();
    expect(swedishPostalCode(null)).toBeNull();
    expect(() => swedishPostalCode(123456)).toThrow(/not a 5-digit postal code/);
    expect(() => swedishPostalCode(999)).toThrow(/not a 5-digit postal code/);
  });
});

describe('se-address parser', () => {
  it('reads the sample addresses with their house numbers, postal codes and WGS84 points', async () => {
    const file = path.join(dir, 'belagenhetsadresser_sverige.gpkg');
    writeSeAddressGpkg({ path: file, seed: '7', parcels: 300, plan: undefined as never });
    const { rows, rejects } = await parseFile(seAddress, file);
    expect(rejects).toEqual([]);
    const truth = [...propertiesOfSwedishPlan(planSwedishSample(300, '7'))].flatMap((p) => p.addresses);
    expect(rows).toHaveLength(truth.length);
    const toWgs84 = transformTo(3006);
    rows.forEach((row, i) => {
      const staged = rowObject(seAddress, row);
      const a = truth[i];
      expect(staged).toMatchObject({ address_id: a.objektidentitet, street_name: a.adressomrade, address_text: `${a.adressomrade} ${a.expectedHouseNumber}`, postal_code: String(a.postnummer), status: a.statusforbelagenhetsadress });
      expect(`${staged.house_number}${staged.house_letter ?? ''}`).toBe(a.expectedHouseNumber);
      const [lon, lat] = toWgs84(...a.point);
      expect(staged.lon).toBeCloseTo(lon, 9);
      expect(staged.lat).toBeCloseTo(lat, 9);
    });
  });

  it('quarantines addresses that break the register rules', async () => {
    const columns = {
      belagenhetsadress_objektidentitet: 'TEXT', adressplatstyp: 'TEXT', adressomrade_faststalltnamn: 'TEXT', gardsadressomrade_faststalltnamn: 'TEXT',
      adressplatsnummer: 'TEXT', bokstavstillagg: 'TEXT', lagestillagg: 'TEXT', lagestillaggsnummer: 'INTEGER', avvikerfranstandarden: 'BOOLEAN',
      avvikandeadressplatsbeteckning: 'TEXT', kommunkod: 'TEXT', kommunnamn: 'TEXT', postnummer: 'INTEGER', postort: 'TEXT',
      statusforbelagenhetsadress: 'TEXT', versiongiltigfran: 'DATETIME',
    } as const;
    const base = { belagenhetsadress_objektidentitet: 'x', adressplatstyp: 'Gatuadressplats', adressomrade_faststalltnamn: 'Riksgatan', adressplatsnummer: '1', kommunkod: '0180', kommunnamn: 'Stockholm', postnummer: 11128, postort: 'STOCKHOLM', statusforbelagenhetsadress: 'Gällande' };
    const point = { type: 'Point' as const, points: [674032.357, 6580822.5] };
    const file = writeLayer(path.join(dir, 'bad-addresses.gpkg'), { table: 'belagenhetsadress', geometryColumn: 'adressplatspunkt', geometryType: 'POINT', columns }, [
      { attributes: { ...base, statusforbelagenhetsadress: 'Avregistrerad' }, geometry: point },
      { attributes: { ...base, postnummer: 123456 }, geometry: point },
      { attributes: { ...base, avvikerfranstandarden: true }, geometry: point },
      { attributes: { ...base, kommunkod: null }, geometry: point },
      { attributes: base, geometry: { type: 'Point', points: [] } },
      { attributes: { ...base, postnummer: 0, bokstavstillagg: 'A', lagestillagg: 'UV', lagestillaggsnummer: 1 }, geometry: point },
    ]);
    const { rows, rejects } = await parseFile(seAddress, file);
    expect(rejects.map((r) => [r.position, r.reason])).toEqual([
      [1, 'statusforbelagenhetsadress "Avregistrerad" is not Gällande or Reserverad'],
      [2, 'postnummer "123456" is not a 5-digit postal code'],
      [3, 'avvikerfranstandarden is set but avvikandeadressplatsbeteckning is empty'],
      [4, 'kommunkod "" is not a municipality code'],
      [5, 'empty geometry (the blob header sets the empty flag)'],
    ]);
    expect(rows.map((r) => rowObject(seAddress, r))).toMatchObject([{ address_text: 'Riksgatan 1A UV1', house_number: 1, house_letter: 'A UV1', postal_code: null }]);
  });

  it('fails a layer in another CRS', async () => {
    const file = writeLayer(path.join(dir, 'rt90.gpkg'), { table: 'belagenhetsadress', geometryType: 'POINT', srsId: 3021, columns: { belagenhetsadress_objektidentitet: 'TEXT' } }, []);
    await expect(parseFile(seAddress, file)).rejects.toThrow('rt90.gpkg: layer "belagenhetsadress" is in EPSG:3021, expected EPSG:3006');
  });
});
