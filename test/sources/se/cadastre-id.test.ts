import { describe, expect, it } from 'vitest';
import {
  normalSeCadastreId,
  parseEtikett,
  parseSeCadastreId,
  seCadastreId,
  SeDesignationError,
  seDesignation,
  SE_CADASTRE_ID_PATTERN,
  typeOfBlock,
} from '../../../sources/se/cadastre-id.js';
import { cadastreIdFromText } from '../../../sources/se/designation-text.js';

describe('Swedish designations', () => {
  it('writes trakt block:enhet, kvarter enhet and samfälligheter in the form docs/design.md gives', () => {
    expect(seCadastreId({ kommunkod: '0180', kommunnamn: 'Stockholm', trakt: 'Kungsholmen', block: '1', enhet: 2 })).toBe('0180_KUNGSHOLMEN_1_2');
    expect(seCadastreId({ kommunkod: '2480', kommunnamn: 'UMEÅ', trakt: 'TOLVMANSGÅRDEN', block: null, enhet: 4 })).toBe('2480_TOLVMANSGÅRDEN_4');
    expect(seCadastreId({ kommunkod: '0184', kommunnamn: 'SOLNA', trakt: 'BERGA', block: 's', enhet: 3 })).toBe('0184_BERGA_S_3');
    expect(seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'Stora  Essingen', block: '', enhet: 1 })).toBe('0180_STORA-ESSINGEN_1');
    expect(seDesignation({ kommunkod: '0114', kommunnamn: 'Upplands Väsby', trakt: 'ANTUNA', block: '2', enhet: 14 })).toBe('UPPLANDS VÄSBY ANTUNA 2:14');
    expect(seDesignation({ kommunkod: '2480', kommunnamn: 'UMEÅ', trakt: 'TOLVMANSGÅRDEN', block: null, enhet: 4 })).toBe('UMEÅ TOLVMANSGÅRDEN 4');
  });

  it('reads etiketts in every case and drops the area suffix', () => {
    expect(parseEtikett('1:7')).toEqual({ block: '1', enhet: 7 });
    expect(parseEtikett('3:12>1')).toEqual({ block: '3', enhet: 12 });
    expect(parseEtikett('S:3')).toEqual({ block: 'S', enhet: 3 });
    expect(parseEtikett('s:3')).toEqual({ block: 'S', enhet: 3 });
    expect(parseEtikett('ga:1')).toEqual({ block: 'GA', enhet: 1 });
    expect(parseEtikett('fa:2>3')).toEqual({ block: 'FA', enhet: 2 });
    expect(parseEtikett('4>2')).toEqual({ block: null, enhet: 4 });
    expect(parseEtikett('01:7')).toEqual({ block: '1', enhet: 7 });
  });

  it('refuses what is not a designation', () => {
    expect(() => parseEtikett('1:')).toThrow(SeDesignationError);
    expect(() => parseEtikett('X:1')).toThrow(SeDesignationError);
    expect(() => seCadastreId({ kommunkod: '180', kommunnamn: 'STOCKHOLM', trakt: 'A', block: '1', enhet: 1 })).toThrow(/four digits/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: ' ', block: '1', enhet: 1 })).toThrow(/trakt/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'A_B', block: '1', enhet: 1 })).toThrow(/trakt/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'A:B', block: '1', enhet: 1 })).toThrow(/trakt/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'A', block: 'X', enhet: 1 })).toThrow(/block/);
    expect(() => seCadastreId({ kommunkod: '0180', kommunnamn: 'STOCKHOLM', trakt: 'A', block: '1', enhet: 0 })).toThrow(/enhet/);
  });
});

/**
 * Every designation form the register has, from the register's parts (or its text) to the id
 * the store keeps, and from that id back: parsed, it is written again unchanged, its parts are
 * the register's, and the documented pattern matches it.
 */
const FORMS = [
  { form: 'trakt block:enhet', parts: { kommunkod: '0180', trakt: 'KUNGSHOLMEN', block: '1', enhet: 2 }, id: '0180_KUNGSHOLMEN_1_2', type: 'FASTIGHET' },
  { form: 'kvarter enhet', parts: { kommunkod: '2480', trakt: 'Tolvmansgården', block: null, enhet: 4 }, id: '2480_TOLVMANSGÅRDEN_4', type: 'FASTIGHET' },
  { form: 'samfällighet S:n', parts: { kommunkod: '0114', trakt: 'FACKLAN', block: 'S', enhet: 12 }, id: '0114_FACKLAN_S_12', type: 'SAMFÄLLIGHET' },
  { form: 'samfällighet s:n (lower case)', parts: { kommunkod: '0184', trakt: 'berga', block: 's', enhet: 3 }, id: '0184_BERGA_S_3', type: 'SAMFÄLLIGHET' },
  { form: 'gemensamhetsanläggning GA:n', parts: { kommunkod: '0882', trakt: 'BERGA', block: 'GA', enhet: 1 }, id: '0882_BERGA_GA_1', type: 'GEMENSAMHETSANLÄGGNING' },
  { form: 'gemensamhetsanläggning ga:n', parts: { kommunkod: '0882', trakt: 'Berga', block: 'ga', enhet: 14 }, id: '0882_BERGA_GA_14', type: 'GEMENSAMHETSANLÄGGNING' },
  { form: 'fiskeområde FA:n', parts: { kommunkod: '2584', trakt: 'TORNEÄLVEN', block: 'FA', enhet: 1 }, id: '2584_TORNEÄLVEN_FA_1', type: 'FISKEOMRÅDE' },
  { form: 'trakt with spaces', parts: { kommunkod: '0180', trakt: 'Stora Essingen', block: '1', enhet: 7 }, id: '0180_STORA-ESSINGEN_1_7', type: 'FASTIGHET' },
  { form: 'trakt with a hyphen', parts: { kommunkod: '1480', trakt: 'Ale-Skövde', block: '3', enhet: 9 }, id: '1480_ALE-SKÖVDE_3_9', type: 'FASTIGHET' },
  { form: 'trakt with digits', parts: { kommunkod: '1280', trakt: 'Fosie 4', block: '12', enhet: 130 }, id: '1280_FOSIE-4_12_130', type: 'FASTIGHET' },
  { form: 'trakt with Swedish and other letters', parts: { kommunkod: '2584', trakt: 'Övre Ääjärvi é', block: '2', enhet: 1 }, id: '2584_ÖVRE-ÄÄJÄRVI-É_2_1', type: 'FASTIGHET' },
  { form: 'samfällighet in a kvarter trakt', parts: { kommunkod: '0180', trakt: 'Rosen', block: 'S', enhet: 1 }, id: '0180_ROSEN_S_1', type: 'SAMFÄLLIGHET' },
  { form: 'large block and enhet', parts: { kommunkod: '2523', trakt: 'GÄLLIVARE', block: '12345', enhet: 654321 }, id: '2523_GÄLLIVARE_12345_654321', type: 'FASTIGHET' },
] as const;

describe('Swedish cadastreId round trip', () => {
  it.each(FORMS)('$form: $id', ({ parts, id, type }) => {
    const written = seCadastreId({ ...parts, kommunnamn: 'X' });
    expect(written).toBe(id);
    expect(normalSeCadastreId(written)).toBe(written);
    expect(normalSeCadastreId(written.toLowerCase())).toBe(written);
    const parsed = parseSeCadastreId(written)!;
    expect(parsed).toMatchObject({ kommunkod: parts.kommunkod, block: parts.block?.toUpperCase() ?? null, enhet: parts.enhet });
    expect(seCadastreId({ ...parsed, kommunnamn: '' })).toBe(written);
    expect(new RegExp(SE_CADASTRE_ID_PATTERN, 'u').test(written)).toBe(true);
    expect(typeOfBlock(parsed.block)).toBe(type);
  });

  it.each(FORMS)('$form: the same id from the designation text other registers write', ({ parts, id }) => {
    const etikett = `${parts.block === null ? '' : `${parts.block}:`}${parts.enhet}`;
    expect(cadastreIdFromText(parts.kommunkod, `${parts.trakt} ${etikett}`)).toBe(id);
    expect(cadastreIdFromText(parts.kommunkod, `Sundsvall ${parts.trakt} ${etikett}`, 'SUNDSVALL')).toBe(id);
  });

  it('reads a space typed for the trakt\'s "-", and leading zeros, as the normal id', () => {
    expect(normalSeCadastreId('0180_Stora Essingen_01_007')).toBe('0180_STORA-ESSINGEN_1_7');
  });

  it.each(['0180_KUNGSHOLMEN', '180_KUNGSHOLMEN_1_2', '0180__1_2', '0180_KUNGS:HOLMEN_1_2', '0180_KUNGSHOLMEN_X_2', '0180_KUNGSHOLMEN_1_0', '0180_A_1_2_3', '0180_A_1_2>1', '0301-208-327-0-12'])(
    'refuses %s',
    (id) => {
      expect(normalSeCadastreId(id)).toBeNull();
    },
  );
});
