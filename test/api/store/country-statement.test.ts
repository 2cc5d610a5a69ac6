import { describe, expect, it } from 'vitest';
import { countryStatement, countryStatementOnce } from '../../../api/store/country-statement.js';

describe('statements with the country written in', () => {
  it('replaces $1 by the country literal and renumbers the other parameters, $10 included', () => {
    expect(countryStatement(`SELECT $1::text, $2, ST_MakePoint($3, $2), $10 WHERE c = $1`, 'SE')).toBe(
      `SELECT 'SE'::text, $1, ST_MakePoint($2, $1), $9 WHERE c = 'SE'`,
    );
  });

  it('refuses anything but a two-letter code, so no text reaches the statement', () => {
    expect(() => countryStatement('SELECT $1', "NO'; DROP TABLE parcel; --")).toThrow(/not a country code/);
    expect(() => countryStatement('SELECT $1', 'no')).toThrow(/not a country code/);
  });

  it('names one prepared statement per country', () => {
    expect(countryStatementOnce('api-x', 'SELECT $1, $2', 'NO')).toEqual({ name: 'api-x-NO', text: `SELECT 'NO', $1` });
    expect(countryStatementOnce('api-x', 'SELECT $1, $2', 'SE').name).toBe('api-x-SE');
  });
});
