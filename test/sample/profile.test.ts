import Database from 'better-sqlite3';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_CSV_ENTRY, ADDRESS_CSV_ZIP, generateSample, plansOfSample, samplePlans, type SampleResult } from '../../sample/generate.js';
import { BYGNING_GML_ENTRY } from '../../sample/no/write-bygning-gml.js';
import { expectedCounts, NATIONAL_NO_MIX, NATIONAL_TARGETS, resolveSampleSize } from '../../sample/profile.js';
import { COUNTRIES } from '../../lib/domain/country.js';
import { readZip, tempDir } from './helpers.js';

// Small enough for a test (≈4,300 teiger, 6,600 Swedish properties), large enough that every
// register's count is within a few percent of its target when the mix is right.
const SCALE = 0.002;
const TOLERANCE = 0.06;

function countIn(file: string, sql: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('the national profile', () => {
  let result: SampleResult;
  let dir: string;

  beforeAll(async () => {
    dir = await tempDir('sample-national');
    result = await generateSample({ outDir: dir, profile: 'national', scale: SCALE, seed: 'profile' });
  });

  it('writes each register at its national target times the scale', async () => {
    const want = expectedCounts(SCALE);
    const zipText = async (zip: string, entry: string) => (await readZip(join(dir, zip))).get(entry)!.toString('utf8');
    const addressLines = (await zipText(ADDRESS_CSV_ZIP, ADDRESS_CSV_ENTRY)).split('\n').filter((line) => line !== '').length - 1;
    const buildings = (await zipText('Basisdata_0000_Norge_25833_MatrikkelenBygning_GML.zip', BYGNING_GML_ENTRY)).match(/<app:Bygning gml:id=/g)!.length;
    const energy = (await readFile(join(dir, 'Enova_0000_Norge_Energiattester.csv'), 'utf8')).split('\r\n').filter((line) => line !== '').length - 1;
    const got = {
      NO: {
        // One grunnboksblad per matrikkelenhet.
        matrikkelenheter: result.rows['Grunnbok_0000_Norge.jsonl'],
        addresses: addressLines,
        buildings,
        companies: result.rows['enhetsregisteret.tar'],
        energyCertificates: energy,
      },
      SE: {
        properties: countIn(join(dir, 'fastighetsindelning_sverige.gpkg'), 'SELECT count(DISTINCT registerenhetsreferens) AS n FROM registerenhetsomradesyta'),
        addresses: countIn(join(dir, 'belagenhetsadresser_sverige.gpkg'), 'SELECT count(*) AS n FROM belagenhetsadress'),
        buildings: countIn(join(dir, 'byggnad_sverige.gpkg'), 'SELECT count(DISTINCT objektidentitet) AS n FROM byggnad'),
        companies: result.rows['se_foretag_0000_bolagsverket_scb.tar'],
      },
    };
    expect(addressLines).toBe(result.addresses);
    for (const country of COUNTRIES) {
      for (const [register, target] of Object.entries(want[country])) {
        const count = (got[country] as Record<string, number>)[register];
        expect(Math.abs(count / target - 1), `${country} ${register}: ${count} for a target of ${target}`).toBeLessThan(TOLERANCE);
      }
    }
    // The plan sizes themselves are exact.
    expect(got.SE.properties).toBe(Math.round(NATIONAL_TARGETS.SE.properties * SCALE));
    expect(result.seProperties).toBe(got.SE.properties);
  });

  it('spreads a scaled-down sample over every municipality of both countries', () => {
    const { plan, sePlan } = samplePlans(resolveSampleSize({ profile: 'national', scale: SCALE }), 'profile');
    expect(plan.blocks).toHaveLength(357);
    expect(sePlan.blocks).toHaveLength(290);
    expect(plan.blocks.reduce((sum, block) => sum + block.count, 0)).toBe(result.parcels);
  });

  it('records the profile in the manifest and reuses the directory only for the same scale', async () => {
    const manifest = JSON.parse(await readFile(result.manifestPath, 'utf8'));
    expect(manifest).toMatchObject({ profile: 'national', scale: SCALE, parcels: result.parcels, seProperties: result.seProperties });
    // What evaluate-tenants rebuilds its truth from.
    const rebuilt = plansOfSample(manifest);
    expect([rebuilt.plan.parcels, rebuilt.sePlan.count, rebuilt.plan.mix.landShare.other]).toEqual([result.parcels, result.seProperties, NATIONAL_NO_MIX.landShare.other]);
    expect((await generateSample({ outDir: dir, profile: 'national', scale: SCALE, seed: 'profile' })).skipped).toBe(true);
    const small = resolveSampleSize({ profile: 'national', scale: SCALE / 2 });
    expect(small.parcels).toBeLessThan(result.parcels);
  });

  it('rejects sizes the profile does not take', () => {
    expect(() => resolveSampleSize({ profile: 'national', scale: 0 })).toThrow(/scale must be between/);
    expect(() => resolveSampleSize({ profile: 'national', scale: 1.5 })).toThrow(/scale must be between/);
    expect(() => resolveSampleSize({ profile: 'national', parcels: 1000 })).toThrow(/use --scale/);
    expect(() => resolveSampleSize({ parcels: 1000, scale: 0.5 })).toThrow(/--scale applies/);
    expect(() => resolveSampleSize({ profile: 'huge' as never })).toThrow(/unknown sample profile/);
    expect(resolveSampleSize({ parcels: 1000 })).toMatchObject({ profile: 'parcels', parcels: 1000, seProperties: 1000 });
  });
});
