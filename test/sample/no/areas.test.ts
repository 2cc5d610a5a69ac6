import { describe, expect, it } from 'vitest';
import { GRUNNKRETS_SAMPLE_FILE, MUNICIPALITY_SAMPLE_FILE, POSTAL_CODE_SAMPLE_FILE } from '../../../sample/no/areas.js';
import { parcelsOfPlan } from '../../../sample/parcels.js';
import { planSample } from '../../../sample/plan.js';
import { noArea } from '../../../sources/no/area/adapter.js';
import { AREA_STAGING_COLUMNS } from '../../../sources/no/area-features.js';
import { noGrunnkrets } from '../../../sources/no/grunnkrets/adapter.js';
import { noPostalCode } from '../../../sources/no/postal-code/adapter.js';
import { staged, writeAndParse } from './written-register.js';

const plan = planSample(2400, '7');
const columns = AREA_STAGING_COLUMNS.map((c) => c.name);

/** The rectangles of a feature in EPSG:25833, as written (before staging reprojects them). */
function rectangles(bytes: Buffer): Map<string, number[][]> {
  const collection = JSON.parse(bytes.toString('utf8')) as { features: { properties: Record<string, string>; geometry: { type: string; coordinates: number[][][] | number[][][][] } }[] };
  const out = new Map<string, number[][]>();
  for (const feature of collection.features) {
    const code = feature.properties.grunnkretsnummer ?? feature.properties.postnummer;
    const polygons = (feature.geometry.type === 'Polygon' ? [feature.geometry.coordinates] : feature.geometry.coordinates) as number[][][][];
    out.set(code, polygons.map(([ring]) => [ring[0][0], ring[0][1], ring[2][0], ring[2][1]]));
  }
  return out;
}

const inside = (boxes: number[][] | undefined, east: number, north: number) =>
  (boxes ?? []).some(([w, s, e, n]) => east > w && east < e && north > s && north < n);

describe('sample areas', () => {
  it('municipality file: the real 357 boundaries, loading without a reject', async () => {
    const { rows, records } = await writeAndParse(MUNICIPALITY_SAMPLE_FILE, noArea, plan);
    expect(rows).toBe(357);
    expect(records.filter((r) => r.kind === 'reject')).toEqual([]);
    expect(staged(records, columns).map((m) => m.area_code)).toContain('0301');
  });

  it('grunnkretser and postal areas carry exactly the codes of the sample addresses, each address inside its own', async () => {
    const grunnkretser = await writeAndParse(GRUNNKRETS_SAMPLE_FILE, noGrunnkrets, plan);
    const postal = await writeAndParse(POSTAL_CODE_SAMPLE_FILE, noPostalCode, plan);
    for (const written of [grunnkretser, postal]) {
      expect(written.records.filter((r) => r.kind === 'reject')).toEqual([]);
      expect(written.records).toHaveLength(written.rows);
    }
    const kretsBoxes = rectangles(grunnkretser.bytes);
    const postalBoxes = rectangles(postal.bytes);
    const kretsNames = new Map(staged(grunnkretser.records, columns).map((g) => [g.area_code, g.name]));
    const postalMunicipality = new Map(staged(postal.records, columns).map((p) => [String(p.area_code), String(p.municipality_code)]));
    let addresses = 0;
    for (const parcel of parcelsOfPlan(plan)) {
      for (const address of parcel.addresses) {
        addresses++;
        const krets = address.districts.grunnkrets;
        expect(kretsNames.get(krets.nummer)).toBe(krets.navn);
        expect(inside(kretsBoxes.get(krets.nummer), address.east, address.north), `${address.adresseId} in ${krets.nummer}`).toBe(true);
        expect(postalMunicipality.get(address.postnummer)).toBe(address.kommunenummer);
        expect(inside(postalBoxes.get(address.postnummer), address.east, address.north), `${address.adresseId} in ${address.postnummer}`).toBe(true);
      }
    }
    expect(addresses).toBeGreaterThan(5000);
    // Every written area is some address's: no stray codes.
    const used = new Set([...parcelsOfPlan(plan)].flatMap((p) => p.addresses.map((a) => a.postnummer)));
    expect([...postalMunicipality.keys()].filter((code) => !used.has(code)).length).toBeLessThan(postalMunicipality.size * 0.1);
  });
});
