import { describe, expect, it } from 'vitest';
import { SOURCES, getSource, selectSources } from '../../sources/registry.js';

describe('the source registry', () => {
  it('names every register of issues 3 and 4 once', () => {
    const ids = SOURCES.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ['no-address', 'no-cadastre', 'no-building', 'no-matrikkel-detail', 'no-energy', 'no-business', 'no-land-registry', 'no-zoning', 'no-permits', 'no-certification', 'no-area',
      'se-cadastre', 'se-address', 'se-building', 'se-energy', 'se-business', 'se-transactions', 'se-area']) {
      expect(ids).toContain(id);
    }
    for (const source of SOURCES) expect(source.id.slice(0, 3)).toBe(`${source.country.toLowerCase()}-`);
  });

  it('lists a source after the sources it depends on, in its own country', () => {
    SOURCES.forEach((source, position) => {
      for (const dependency of source.dependsOn ?? []) {
        const at = SOURCES.findIndex((s) => s.id === dependency);
        expect(at, `${source.id} depends on ${dependency}`).toBeGreaterThanOrEqual(0);
        expect(at, `${dependency} before ${source.id}`).toBeLessThan(position);
        expect(SOURCES[at].country).toBe(source.country);
      }
    });
  });

  it('selects by country and by id, and names the known ids for an unknown one', () => {
    expect(selectSources({ country: 'SE' }).every((s) => s.country === 'SE')).toBe(true);
    expect(selectSources({ sources: ['se-address', 'no-address'] }).map((s) => s.id)).toEqual(['se-address', 'no-address']);
    expect(() => getSource('no-such')).toThrow(/known sources: no-address, no-cadastre/);
  });
});
