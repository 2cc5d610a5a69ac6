import { describe, expect, it } from 'vitest';
import { delimitedField, headerColumn } from '../../../sources/formats/delimited-field.js';

describe('delimitedField', () => {
  it('reads one field of a plain line', () => {
    expect(['a', 'b', '', 'd', undefined].map((_, i) => delimitedField('a\tb\t\td', i, '\t'))).toEqual(['a', 'b', '', 'd', undefined]);
  });

  it('unquotes a quoted field, a doubled quote being one, a delimiter inside it kept', () => {
    const line = '"5560000001$ORGNR-IDORG";"";"Bolaget ""Ett"";AB";x';
    expect([0, 1, 2, 3].map((i) => delimitedField(line, i, ';', '"'))).toEqual(['5560000001$ORGNR-IDORG', '', 'Bolaget "Ett";AB', 'x']);
  });

  it('gives nothing for a quote never closed or text after a closing quote', () => {
    expect(delimitedField('"abc;def', 0, ';', '"')).toBeUndefined();
    expect(delimitedField('"abc"x;def', 0, ';', '"')).toBeUndefined();
  });
});

describe('headerColumn', () => {
  it('finds a column by name, in any case, past a byte order mark (decoded, or its bytes read as Latin-1)', () => {
    expect(headerColumn('\uFEFF"organisationsidentitet";"namnskyddslopnummer"', 'namnskyddslopnummer', ';', '"')).toBe(1);
    expect(headerColumn('\u00EF\u00BB\u00BF"Organisationsidentitet";"x"', 'organisationsidentitet', ';', '"')).toBe(0);
    expect(headerColumn('CFARNr\tPeOrgNr', 'peorgnr', '\t')).toBe(1);
    expect(headerColumn('CFARNr\tPeOrgNr', 'missing', '\t')).toBe(-1);
  });
});
