import { describe, expect, it } from 'vitest';
import { parseEtikett, seCadastreId, SeDesignationError, seDesignation } from '../../../sources/se/cadastre-id.js';

describe('Swedish designations', () => {
  it('writes trakt block:enhet, kvarter enhet and samfälligheter in DESIGN.md form', () => {
    expect(seCadastreId({ kommunkod: '0180', kommunnamn: 'Stockholm', trakt: 'Kungsholmen', block: '1', enhet: 2 })).toBe('0180_KUNGSHOLMEN_1_2');
    expect(seCadastreId({ kommunkod: '2480', kommunnamn: 'UMEÅ', trakt: 'TOLVMANSGÅRDEN', block: null, enhet: 4 })).toBe('2480_TOLVMANSGÅRDEN_4');
    expect(seCadastreId({ kommunkod: '0184', kommunnamn: 'SOLNA', trakt: 'BERGA', block: 's', enhet: 3 })).toBe('0184_BERGA_S_3');
    expect(seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'Stora  Essingen', block: '', enhet: 1 })).toBe('0180_STORA-ESSINGEN_1');
    expect(seDesignation({ kommunkod: '0114', kommunnamn: 'Upplands Väsby', trakt: 'ANTUNA', block: '2', enhet: 14 })).toBe('UPPLANDS VÄSBY ANTUNA 2:14');
    expect(seDesignation({ kommunkod: '2480', kommunnamn: 'UMEÅ', trakt: 'TOLVMANSGÅRDEN', block: null, enhet: 4 })).toBe('UMEÅ TOLVMANSGÅRDEN 4');
  });

  it('reads etiketts and drops the area suffix', () => {
    expect(parseEtikett('1:7')).toEqual({ block: '1', enhet: 7 });
    expect(parseEtikett('3:12>1')).toEqual({ block: '3', enhet: 12 });
    expect(parseEtikett('S:3')).toEqual({ block: 'S', enhet: 3 });
    expect(parseEtikett('ga:1')).toEqual({ block: 'GA', enhet: 1 });
    expect(parseEtikett('4>2')).toEqual({ block: null, enhet: 4 });
  });

  it('refuses what is not a designation', () => {
    expect(() => parseEtikett('1:')).toThrow(SeDesignationError);
    expect(() => parseEtikett('X:1')).toThrow(SeDesignationError);
    expect(() => seCadastreId({ kommunkod: '180', kommunnamn: 'STOCKHOLM', trakt: 'A', block: '1', enhet: 1 })).toThrow(/four digits/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: ' ', block: '1', enhet: 1 })).toThrow(/trakt/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'A', block: '1', enhet: 0 })).toThrow(/enhet/);
  });
});
