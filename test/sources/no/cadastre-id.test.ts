import { describe, expect, it } from 'vitest';
import { normalizeCadastreId, CadastreIdError } from '../../../sources/no/cadastre-id.js';

describe('Norwegian cadastreId', () => {
  it.each([
    ['0301-208-327-0-12', undefined, '0301-208-327-0-12'],
    ['0301-208/327/0/12', undefined, '0301-208-327-0-12'],
    ['3413-325/2', undefined, '3413-325-2-0-0'],
    ['3413-325/2/1', undefined, '3413-325-2-1-0'],
    ['208/327', '0301', '0301-208-327-0-0'],
    ['6/501/0/2', '3413', '3413-6-501-0-2'],
    ['301-208/327', undefined, '0301-208-327-0-0'],
  ])('normalizes %s (kommune %s) to %s', (input, municipality, expected) => {
    expect(normalizeCadastreId(input, municipality)).toBe(expected);
  });

  it.each([
    ['208/327', undefined, /has no municipality number/],
    ['0301-208', undefined, /is not a Norwegian cadastre number/],
    ['0301-0/5', undefined, /gardsnummer 0/],
    ['0301-a/5', undefined, /is not a Norwegian cadastre number/],
    ['12345-1/2', undefined, /is not a Norwegian cadastre number/],
  ])('rejects %s', (input, municipality, message) => {
    expect(() => normalizeCadastreId(input, municipality)).toThrow(CadastreIdError);
    expect(() => normalizeCadastreId(input, municipality)).toThrow(message);
  });
});
