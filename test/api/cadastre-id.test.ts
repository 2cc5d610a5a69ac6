import { describe, expect, it } from 'vitest';
import { normalCadastreId } from '../../api/cadastre-id.js';
import { formatCadastreId, unitFromParts } from '../../sources/no/cadastre-id.js';
import { seCadastreId } from '../../sources/se/cadastre-id.js';

/** The API takes back every id the sources write, unchanged, and refuses what no source writes. */
describe('normalCadastreId', () => {
  it.each([
    { kommunenummer: '0301', gardsnummer: 208, bruksnummer: 327, festenummer: 0, seksjonsnummer: 12 },
    { kommunenummer: '301', gardsnummer: 1, bruksnummer: 1 },
    { kommunenummer: '5001', gardsnummer: 99999, bruksnummer: 99999, festenummer: 99999, seksjonsnummer: 99999 },
  ])('Norway: the id the register sources write for %o', (parts) => {
    const id = formatCadastreId(unitFromParts(parts));
    expect(normalCadastreId('NO', id)).toBe(id);
  });

  it.each([
    { trakt: 'KUNGSHOLMEN', block: '1', enhet: 2 },
    { trakt: 'TOLVMANSGÅRDEN', block: null, enhet: 4 },
    { trakt: 'FACKLAN', block: 'S', enhet: 12 },
    { trakt: 'Berga', block: 'ga', enhet: 1 },
    { trakt: 'Torneälven', block: 'FA', enhet: 3 },
    { trakt: 'Stora Essingen', block: '1', enhet: 7 },
    { trakt: 'Fosie 4', block: '12', enhet: 130 },
  ])('Sweden: the id the register sources write for %o, in any case', (parts) => {
    const id = seCadastreId({ kommunkod: '0114', kommunnamn: 'UPPLANDS VÄSBY', ...parts });
    expect(normalCadastreId('SE', id)).toBe(id);
    expect(normalCadastreId('SE', id.toLowerCase())).toBe(id);
  });

  it('normalizes what a caller may type: leading zeros, a space for the trakt\'s "-"', () => {
    expect(normalCadastreId('NO', '0301-084-035-0-00')).toBe('0301-84-35-0-0');
    expect(normalCadastreId('SE', '0180_stora essingen_01_7')).toBe('0180_STORA-ESSINGEN_1_7');
  });

  it.each([
    ['NO', '0301-208-327-0'],
    ['NO', '301-208-327-0-12'],
    ['NO', '0301-208/327'],
    ['NO', '0114_FACKLAN_S_12'],
    ['SE', '0180_KUNGSHOLMEN_X_2'],
    ['SE', '0180_KUNGSHOLMEN'],
    ['SE', '0301-208-327-0-12'],
    ['SE', '0180_KUNGS/HOLMEN_1_2'],
  ])('%s refuses %s with 400', (country, id) => {
    expect(() => normalCadastreId(country, id)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
