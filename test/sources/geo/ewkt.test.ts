import { describe, expect, it } from 'vitest';
import { degrees7 } from '../../../sources/geo/degrees.js';
import { multiPolygonEwkt } from '../../../sources/geo/ewkt.js';
import { planarArea } from '../../../sources/geo/planar-area.js';
import { transformTo } from '../../../sources/geo/reproject.js';

describe('degrees7', () => {
  it.each([
    [10.68194592504, '10.6819459'],
    [59.99999996, '60.0000000'],
    [-8.5, '-8.5000000'],
    [-0.00000004, '0.0000000'],
    [0.0000001, '0.0000001'],
    [179.12345675, '179.1234568'],
  ])('%s → %s', (value, text) => {
    expect(degrees7(value)).toBe(text);
  });
});

describe('multiPolygonEwkt', () => {
  it('reprojects every vertex of exterior and hole to WGS84 lon/lat, as PROJ does', () => {
    const square = [262000, 6650000, 262050, 6650000, 262050, 6650050, 262000, 6650050, 262000, 6650000];
    const hole = [262010, 6650010, 262010, 6650020, 262020, 6650020, 262020, 6650010, 262010, 6650010];
    const ewkt = multiPolygonEwkt([[square, hole]], transformTo(25833));
    expect(ewkt.startsWith('SRID=4326;MULTIPOLYGON(((')).toBe(true);
    expect(ewkt.match(/\(/g)).toHaveLength(4);
    // PROJ's cs2cs EPSG:25833 → EPSG:4326 for 262000 6650000: 59.91855954 N, 10.74156589 E.
    const [lon, lat] = ewkt.slice('SRID=4326;MULTIPOLYGON((('.length).split(',')[0].split(' ').map(Number);
    expect(lon).toBeCloseTo(10.74156589, 6);
    expect(lat).toBeCloseTo(59.91855954, 6);
  });
});

describe('planarArea', () => {
  it('is the shoelace area with holes subtracted, whatever the ring orientation', () => {
    const square = [0, 0, 50, 0, 50, 50, 0, 50, 0, 0];
    const clockwiseHole = [10, 10, 10, 20, 20, 20, 20, 10, 10, 10];
    expect(planarArea([[square, clockwiseHole]])).toBe(2500 - 100);
    expect(planarArea([[square], [[100, 100, 110, 100, 110, 110, 100, 100]]])).toBe(2500 + 50);
  });
});
