/**
 * Later nights of a sample (sample/night.ts): night 0 is the sample as it was before nights
 * existed, a night is written byte for byte again from its seed, and night 1 differs from
 * night 0 in about 2 % of each register's rows, counted by key as the sources' own parsers read
 * the files.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateSample, type SampleResult } from '../../sample/generate.js';
import { ADDRESS_ID_BASE } from '../../sample/parcels.js';
import { plansOfSample } from '../../sample/plans.js';
import { tempDir } from './helpers.js';
import { differenceOf, rowsByKey, type KeyChoice } from './register-rows.js';

const SEED = 'night-test';

/**
 * sha256 of every file of `generateSample({ profile: 'national', scale: 0.0005, seed: 'night-test' })`,
 * taken with the generator before it had nights (commit 4567c01, which already writes Swedish company buyers and declarations covering two properties).
 */
const NIGHT_ZERO_BEFORE_NIGHTS: Record<string, string> = {
  'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip': '05d598d80110b24671551a94d17b0c0b7a329b1ea2431e41bce2e96f6daa3493',
  'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip': 'b05a69a8f67ef459a182bb99ed465cac7e9116e533de687cd1659dd141a193b1',
  'enhetsregisteret.tar': 'c8eeca0a5472012c55477b5820af150d8c555a996907995a5c77dbaa85528668',
  'Basisdata_0000_Norge_25833_MatrikkelenBygning_GML.zip': 'e2b1b9d89e1330f0f9b94f5fe8da9ebb9419ab8a14f3496db50a6097f28b0f34',
  'Matrikkel_0000_Norge_Bygningsdetaljer.jsonl': '3e717a2f10fff5dc7990b9a2807e7f9084febe1f7751bfc1775b63460e07795b',
  'Enova_0000_Norge_Energiattester.csv': 'be15a5d6bd30998827022db8ed2b0e82dfbd64e02b1acae600801ea3f3ebe937',
  'Miljosertifisering_0000_Norge.jsonl': '2cd019b07f06ed898949624c185eae763e9c4367be09915407127fef6612e359',
  'Byggesak_0000_Norge.jsonl': 'c15b05869e92e296a416815c01ea1fe72e6396511b0f7152b39d80687f665a4a',
  'Basisdata_0000_Norge_4258_Kommuner_GeoJSON.geojson': '20cb3b1216f0af2f4ff429fc0c1a147fdc672e03d2e34dde5cd666c52adbf84d',
  'Befolkning_0000_Norge_25833_Grunnkretser_GeoJSON.geojson': 'e85ceb9a21462a9a3ce4102f844aeb9313dcf77940ff6d7eeebac5575057061a',
  'Basisdata_0000_Norge_25833_Postnummeromrader_GeoJSON.geojson': '3e1be22ee62634081cdff84a7597e3b508ea741163067e9741823d88eafb9338',
  'Tomtetildelinger_0000_Norge.jsonl': '4cf29564c0520af17c9c1eb4f9cfb3b00a9549215780e1a38763eb2d04cfb778',
  'Grunnbok_0000_Norge.jsonl': 'c743ff9de5e58505bf966bfe1d14fbfe1da51f2e5e9bca0f07ec34a44289c746',
  'Reguleringsplaner_0000_Norge.jsonl': 'c2d7e8288529c2a46df722fef6bb65e4593e6d13e74bd2d12fd00b96cfb3e30e',
  'fastighetsindelning_sverige.gpkg': '962031bb2c5b92d8d7bc6c54e9f289e2938dcd8647b0e9f26e2e834624d34049',
  'belagenhetsadresser_sverige.gpkg': 'a3db796ef92898f22ace3fca84a2466dcf5c983c16e096939e869bec3ba657b7',
  'byggnad_sverige.gpkg': 'd49f129315f1b4ff5c1861296a91be78aab710bca5b04bf73decc5d772e61892',
  'boverket_energideklarationer_0000_sverige.jsonl': '5761b972b3c21c1e335da81b6b748c35cba8d3dd8d366566c48030df33714ca7',
  'se_foretag_0000_bolagsverket_scb.tar': '2ccb6c7429b95f853698f0241a8129474bb460ab6209b68db7f7f29f43397f0e',
  'fastighetspriser_0000_sverige.tar': '32ec3b7c47851e0b4fe8193a96c61da6a9865879f6270fcab7f3965be7cef7eb',
  'se_omraden_0000_sverige.tar': '27c9a215a7ca8337771c229b44244baea324279f770d1b25a4c80bb8b6461a97',
  'detaljplaner_0000_sverige.jsonl': '6504c3574d030b16a7a30ea38f8173338840235fac452275a63c1387eb809180',
};

const manifestFiles = async (result: SampleResult): Promise<Record<string, string>> => JSON.parse(await readFile(result.manifestPath, 'utf8')).files;

/** Registers written per parcel or property: each night changes 1–3 % of their rows. */
const PER_ITEM = ['no-address', 'no-cadastre', 'no-business', 'no-building', 'no-matrikkel-detail', 'no-energy', 'no-permits', 'no-land-registry', 'se-cadastre', 'se-address', 'se-building', 'se-energy', 'se-business', 'se-transactions'];
/** Written per item too, but 34 rows at this scale: 2 % of it is less than a row. */
const PER_ITEM_SMALL = ['no-certification'];
/** Written per municipality (areas, zoning plans, land allocations): the same every night. */
const PER_MUNICIPALITY = ['no-area', 'no-grunnkrets', 'no-postal-code', 'no-land-allocation', 'no-zoning', 'se-zoning'];
/** Municipal areas and a land allocation for a few properties: nearly the same every night. */
const MOSTLY_PER_MUNICIPALITY = ['se-area'];
/** The staged key of a building part is its position in the file, which every removal before it shifts: compare buildings. */
const KEYS: Record<string, KeyChoice> = { 'se-building': { key: ['building_id'] } };

describe('generateSample({ night })', () => {
  it('writes night 0 byte for byte as the generator did before nights existed', async () => {
    const result = await generateSample({ outDir: await tempDir('night-zero'), profile: 'national', scale: 0.0005, seed: SEED, night: 0 });
    expect(await manifestFiles(result)).toEqual(NIGHT_ZERO_BEFORE_NIGHTS);
    expect(JSON.parse(await readFile(result.manifestPath, 'utf8'))).not.toHaveProperty('night');
  });

  it('writes the same night byte for byte again, and another night differently', async () => {
    const options = { profile: 'national' as const, scale: 0.0005, seed: SEED };
    const first = await generateSample({ ...options, outDir: await tempDir('night-one-a'), night: 1 });
    const again = await generateSample({ ...options, outDir: await tempDir('night-one-b'), night: 1 });
    const second = await generateSample({ ...options, outDir: await tempDir('night-two'), night: 2 });
    expect(first.night).toBe(1);
    expect(await manifestFiles(again)).toEqual(await manifestFiles(first));
    const [one, two] = [await manifestFiles(first), await manifestFiles(second)];
    expect(two['Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip']).not.toBe(one['Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip']);
    expect(two['byggnad_sverige.gpkg']).not.toBe(one['byggnad_sverige.gpkg']);
    // A directory holding night 1 is not taken for night 2 (nor for night 0).
    expect((await generateSample({ ...options, outDir: first.outDir, night: 1 })).skipped).toBe(true);
    expect((await generateSample({ ...options, outDir: first.outDir, night: 2 })).skipped).toBe(false);
  });

  it('refuses a night that is not a whole number from 0', async () => {
    await expect(generateSample({ outDir: await tempDir('night-bad'), parcels: 10, night: -1 })).rejects.toThrow(/night must be a whole number/);
    await expect(generateSample({ outDir: await tempDir('night-bad'), parcels: 10, night: 1.5 })).rejects.toThrow(/night must be a whole number/);
  });

  it('changes, adds and removes about 2 % of each register\'s rows from night 0 to night 1, a removed teig\'s addresses with it', async () => {
    const options = { profile: 'national' as const, scale: 0.002, seed: SEED };
    const zero = await generateSample({ ...options, outDir: await tempDir('night-diff-0') });
    const one = await generateSample({ ...options, outDir: await tempDir('night-diff-1'), night: 1 });
    const shares: Record<string, number> = {};
    const differences: Record<string, unknown> = {};
    for (const [sourceId, file] of Object.entries(zero.sourceFiles)) {
      const difference = differenceOf(await rowsByKey(sourceId, file, KEYS[sourceId]), await rowsByKey(sourceId, one.sourceFiles[sourceId], KEYS[sourceId]));
      shares[sourceId] = difference.share;
      differences[sourceId] = difference;
      if (PER_ITEM.includes(sourceId)) {
        // Changed, added and removed rows each occur: a night is not only deletions.
        expect(difference.removed, sourceId).toBeGreaterThan(0);
        expect(difference.added, sourceId).toBeGreaterThan(0);
      }
    }
    expect(Object.keys(shares).sort()).toEqual([...PER_ITEM, ...PER_ITEM_SMALL, ...PER_MUNICIPALITY, ...MOSTLY_PER_MUNICIPALITY].sort());
    for (const sourceId of PER_ITEM) {
      expect(shares[sourceId], `${sourceId}: ${JSON.stringify(differences[sourceId])}`).toBeGreaterThanOrEqual(0.01);
      expect(shares[sourceId], `${sourceId}: ${JSON.stringify(differences[sourceId])}`).toBeLessThanOrEqual(0.03);
    }
    for (const sourceId of PER_ITEM_SMALL) expect(shares[sourceId], sourceId).toBeLessThanOrEqual(0.03);
    for (const sourceId of PER_MUNICIPALITY) expect(shares[sourceId], sourceId).toBe(0);
    for (const sourceId of MOSTLY_PER_MUNICIPALITY) expect(shares[sourceId], sourceId).toBeLessThan(0.01);

    // Coherent: the teiger gone by night 1 had addresses on night 0, and none of them is left.
    const { plan } = plansOfSample({ seed: SEED, parcels: zero.parcels, profile: 'national', scale: 0.002, night: 1 });
    const gone = [...plan.night!.gone];
    expect(gone.length).toBeGreaterThan(0);
    const addressIds = (rows: Map<string, string>) => new Set([...rows.keys()].map((key) => Number(JSON.parse(key)[0])));
    const [before, after] = [addressIds(await rowsByKey('no-address', zero.sourceFiles['no-address'])), addressIds(await rowsByKey('no-address', one.sourceFiles['no-address']))];
    const goneAddresses = gone.flatMap((index) => Array.from({ length: 10 }, (_, j) => ADDRESS_ID_BASE + 10 * index + j)).filter((id) => before.has(id));
    expect(goneAddresses.length).toBeGreaterThan(0);
    expect(goneAddresses.filter((id) => after.has(id))).toEqual([]);
  });
});
