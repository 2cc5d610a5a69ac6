import { describe, expect, it } from 'vitest';
import { loadMunicipalities } from '../../sample/municipalities.js';
import { locateParcel, planSample } from '../../sample/plan.js';

describe('sample area plan', () => {
  it('uses only the five demo municipalities up to demo size', () => {
    const plan = planSample(5000, 'x');
    expect(plan.blocks.map((b) => `${b.municipality.kommunenummer} ${b.municipality.kommunenavn}`)).toEqual([
      '0301 Oslo', '4601 Bergen', '5001 Trondheim - Tråante', '4204 Kristiansand', '3201 Bærum',
    ]);
    expect(planSample(3, 'x').blocks.map((b) => b.count)).toEqual([1, 1, 1]);
  });

  it('spreads larger samples over more counties, and the national size over all 357 municipalities', () => {
    const medium = planSample(20_000, 'x');
    expect(medium.blocks.length).toBe(18);
    expect(new Set(medium.blocks.map((b) => b.municipality.county)).size).toBeGreaterThanOrEqual(10);

    const national = planSample(300_000, 'x');
    expect(national.blocks).toHaveLength(357);
    expect(loadMunicipalities()).toHaveLength(357);
    expect(national.blocks.reduce((sum, b) => sum + b.count, 0)).toBe(300_000);
    const oslo = national.blocks.find((b) => b.municipality.kommunenummer === '0301')!;
    const utsira = national.blocks.find((b) => b.municipality.kommunenummer === '1151')!;
    expect(oslo.count).toBeGreaterThan(3 * utsira.count);
  });

  it('numbers parcels contiguously per municipality', () => {
    const plan = planSample(300_000, 'x');
    let next = 0;
    for (const b of plan.blocks) {
      expect(b.firstParcel).toBe(next);
      next += b.count;
    }
    const last = locateParcel(plan, 299_999);
    expect(last.block).toBe(plan.blocks.at(-1));
    expect(last.local).toBe(last.block.count - 1);
    expect(() => locateParcel(plan, 300_000)).toThrow(RangeError);
  });

  it('keeps the municipality grids apart', () => {
    const blocks = planSample(300_000, 'x').blocks;
    const boxes = blocks.map((b) => [b.originEast, b.originNorth, b.originEast + b.colOffsets[b.cols], b.originNorth + b.rowOffsets[b.rows]]);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, c] = [boxes[i], boxes[j]];
        const apart = a[2] + 50 < c[0] || c[2] + 50 < a[0] || a[3] + 50 < c[1] || c[3] + 50 < a[1];
        expect(apart).toBe(true);
      }
    }
  });
});
