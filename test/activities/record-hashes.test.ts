/**
 * A night of a source with record hashes (lines, GML features, GeoPackage rows;
 * activities/record-hashes.ts) parses and
 * stages only the records that changed since its last publish, and publishes what a full stage
 * of the same file does.
 */
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample, type SampleResult } from '../../sample/generate.js';
import { getSource } from '../../sources/registry.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { runBackfill, sourceOf } from '../support/runs.js';
import { fileLines, fileText } from '../support/sample-files.js';
import { tablesDigest } from '../support/live-snapshot.js';
import { tempDir } from '../sample/helpers.js';
import { GeoPackage } from '../../sources/formats/geopackage.js';
import { writeTarBundle, zipOf } from '../sources/se/tar-bundle.js';
import { readBundle } from '../../sources/formats/bundle.js';
import { hashArtifactRecords } from '../../activities/record-hashes.js';
import { openRecordSpool } from '../../activities/record-spool.js';
import { recordChangesTableName, recordsTableName } from '../../activities/staging-table.js';
import { keepFeatures } from '../../sources/formats/gml-feature-records.js';
import { blankLinesExcept, LineSet } from '../../sources/formats/line-records.js';
import { openInput } from '../../sources/formats/open-input.js';

// no-certification reads the same way, but its sample file holds too few rows for a night to change one at this scale.
const SOURCES = [
  { sourceId: 'no-address', country: 'NO', tables: ['address'], header: true },
  { sourceId: 'no-permits', country: 'NO', tables: ['building_permit'], header: false },
  { sourceId: 'no-matrikkel-detail', country: 'NO', tables: ['building_detail', 'building_floor', 'section', 'unit'], header: false },
  { sourceId: 'no-land-registry', country: 'NO', tables: ['owner', 'property_transaction', 'transaction_party', 'person'], header: false },
  // A quoted CSV: its lines are its records while no quoted field holds a line break.
  { sourceId: 'no-energy', country: 'NO', tables: ['energy_certificate'], header: true },
  // JSON Lines read as a bundle of one file.
  { sourceId: 'se-energy', country: 'SE', tables: ['energy_certificate'], header: false },
] as const;
// Their records are GML features (SourceAdapter.featureRecords) or GeoPackage rows (geoPackageRecords).
const RECORD_SOURCES = [
  { sourceId: 'no-cadastre', kind: 'GML features', country: 'NO', tables: ['parcel', 'parcel_property'], records: (sample: SampleResult) => featureElements(sample, 'no-cadastre', 'Teig') },
  {
    sourceId: 'no-building', kind: 'GML features', country: 'NO', tables: ['building', 'building_status_history', 'building_unit_link'],
    records: (sample: SampleResult) => featureElements(sample, 'no-building', 'Bygning'),
  },
  { sourceId: 'se-address', kind: 'GeoPackage rows', country: 'SE', tables: ['address'], records: async (sample: SampleResult) => storedRows(sample, 'se-address') },
  {
    sourceId: 'se-cadastre', kind: 'GeoPackage rows', country: 'SE', tables: ['parcel', 'parcel_property', 'property_register'],
    records: async (sample: SampleResult) => storedRows(sample, 'se-cadastre'),
  },
  // A building's parts are records of one group: a night parses every part of a building that has a changed one.
  { sourceId: 'se-building', kind: 'GeoPackage rows', country: 'SE', tables: ['building'], records: async (sample: SampleResult) => storedRows(sample, 'se-building'), grouped: true },
  // The lines of a tar's three files, grouped by organisation number across them: a company is its Bolagsverket entry, SCB unit and workplaces.
  {
    sourceId: 'se-business', kind: 'bundle lines', country: 'SE', tables: ['company', 'company_address', 'company_workplace'],
    records: (sample: SampleResult) => bundleLines(sample, 'se-business'), grouped: true,
  },
  // One sale per line of the extract's JSON Lines; its code tables are no records, and go into every sale's hash.
  {
    sourceId: 'se-transactions', kind: 'sales lines', country: 'SE', tables: ['property_transaction', 'transaction_party', 'party_name', 'owner', 'person'],
    records: (sample: SampleResult) => salesLines(sample),
  },
] as const;

let pipeline: TestPipeline;
const nights: SampleResult[] = [];

/** Every data file of a source's tar bundle, its lines read as Latin-1 (byte for byte), the header first. */
async function bundleMembers(sample: SampleResult, sourceId: string): Promise<{ name: string; lines: string[] }[]> {
  const source = getSource(sourceId);
  const members: { name: string; lines: string[] }[] = [];
  for await (const member of readBundle(createReadStream(path.join(sample.outDir, source.inputFileName)), source.inputFileName, { dataFile: source.bundleRecords!.dataFile })) {
    members.push({ name: member.name, lines: Buffer.concat(await member.stream.toArray()).toString('latin1').split(/\r?\n/).filter((line) => line !== '') });
  }
  return members;
}

/** The record lines of every data file of a source's tar bundle (headers left out). */
const bundleLines = async (sample: SampleResult, sourceId: string) => (await bundleMembers(sample, sourceId)).flatMap((member) => member.lines.slice(1));

/** The sales of se-transactions' bundle, one JSON object per line, as UTF-8 text. */
const salesLines = async (sample: SampleResult) =>
  (await bundleMembers(sample, 'se-transactions')).filter((member) => /\.jsonl$/i.test(member.name)).flatMap((member) => member.lines.map((line) => Buffer.from(line, 'latin1').toString('utf8')));

/** The feature elements of a source's GML file in a sample, as text. */
async function featureElements(sample: SampleResult, sourceId: string, element: string): Promise<string[]> {
  return (await fileText(sample, sourceId)).match(new RegExp(`<app:${element}[ >][\\s\\S]*?</app:${element}>`, 'g')) ?? [];
}

/** The record lines of a source's file in a sample (the header dropped). */
const recordLines = async (sample: SampleResult, sourceId: string, header: boolean) => (await fileLines(sample, sourceId)).slice(header ? 1 : 0);

/** Every row of a source's GeoPackage layer in a sample as stored (attributes and geometry blob), as text. */
function storedRows(sample: SampleResult, sourceId: string): string[] {
  const source = getSource(sourceId);
  const gpkg = GeoPackage.open(path.join(sample.outDir, source.inputFileName));
  try {
    const layer = gpkg.layer(source.geoPackageRecords!.layer);
    return [...gpkg.rows(layer, source.geoPackageRecords!.columns)].map((row) => JSON.stringify([row.values, (row.blob as Buffer).toString('base64')]));
  } finally {
    gpkg.close();
  }
}

const input = (sample: SampleResult, sourceId: string) => path.join(sample.outDir, getSource(sourceId).inputFileName);
beforeAll(async () => {
  pipeline = await startPipeline();
  for (const night of [0, 1, 2]) {
    nights.push(await generateSample({ outDir: await tempDir(`record-hashes-${night}`), profile: 'national', scale: 0.002, seed: 'line-records', night }));
  }
}, 240_000);
afterAll(async () => {
  await pipeline?.stop();
});

describe('a night of a source with record hashes', () => {
  it.each(SOURCES)('$sourceId: stages only the changed lines, and a full stage of the same file then changes nothing', async ({ sourceId, country, tables, header }) => {
    const first = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[0], sourceId) }), sourceId);
    expect(first.outcome).toBe('published');

    const before = new Set(await recordLines(nights[0], sourceId, header));
    const after = await recordLines(nights[1], sourceId, header);
    const changed = after.filter((line) => !before.has(line)).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(after.length / 10);

    const nightRun = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId) });
    const night = sourceOf(nightRun, sourceId);
    expect(night.outcome).toBe('published');
    // The ledger says where the night's stage went: the pass over the whole file, the comparison, the parse of what changed.
    const stageSteps = (await pipeline.pool.query(`SELECT details->'stageStepsMs' AS steps FROM source_run WHERE run_id = $1 AND source_id = $2`, [nightRun.runId, sourceId])).rows[0].steps;
    expect(Object.keys(stageSteps ?? {})).toEqual(expect.arrayContaining(['hash_pass', 'compare', 'parse']));
    expect(Object.values(stageSteps as Record<string, number>).every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
    // Every line is read; only the changed ones are parsed (a rejected line is parsed every night).
    expect(night.rowsRead).toBe(after.length);
    expect(night.rowsStaged).toBeLessThanOrEqual(changed);
    expect(night.rowsStaged + night.rowsRejected).toBeGreaterThanOrEqual(changed);
    expect(night.inserted + night.updated + night.deleted).toBeGreaterThan(0);
    const published = await tablesDigest(pipeline.pool, tables, country);

    // The same file staged whole (--force) finds live exactly as the night left it.
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId), force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', rowsStaged: after.length - full.rowsRejected, inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, tables, country)).toEqual(published);
  });

  it('se-energy: stages a tar bundle whole, since its lines are not its records, and publishes what its file alone does', async () => {
    // Runs after the it.each above: live holds night 1 of se-energy, and its line hashes.
    const sourceId = 'se-energy';
    const published = await tablesDigest(pipeline.pool, ['energy_certificate'], 'SE');
    const bundle = await writeTarBundle(path.join(await tempDir('record-hashes-se-energy'), 'boverket_energideklarationer_0000_sverige.tar'), [
      { name: getSource(sourceId).inputFileName, content: await fileText(nights[1], sourceId) },
    ]);
    const lines = await recordLines(nights[1], sourceId, false);
    const run = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: bundle }), sourceId);
    expect(run).toMatchObject({ outcome: 'published', rowsStaged: lines.length - run.rowsRejected, inserted: 0, updated: 0, deleted: 0 });
    expect(run.rowsUnchanged ?? 0).toBe(0);
    expect(await tablesDigest(pipeline.pool, ['energy_certificate'], 'SE')).toEqual(published);
    // Its hashes were not kept: the next night of the file stages it whole, then keeps its hashes again.
    const next = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId) }), sourceId);
    expect(next).toMatchObject({ outcome: 'published', rowsStaged: lines.length - next.rowsRejected, inserted: 0, updated: 0, deleted: 0 });
  });

  it.each(RECORD_SOURCES)('$sourceId: parses only the changed $kind, and a full stage of the same file then changes nothing', async (recordSource) => {
    const { sourceId, country, tables, records } = recordSource;
    const first = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[0], sourceId) }), sourceId);
    expect(first.outcome).toBe('published');

    const before = new Set(await records(nights[0]));
    const after = await records(nights[1]);
    const changed = after.filter((feature) => !before.has(feature)).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(after.length / 10);

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId) }), sourceId);
    const parsed = night.rowsStaged + night.rowsRejected;
    expect(night).toMatchObject({ outcome: 'published', rowsRead: after.length, rowsUnchanged: after.length - parsed });
    if ('grouped' in recordSource) {
      // The changed records and the unchanged ones of their groups (and of the groups that lost one).
      // The sample's nights may change every record of a group at once (a company in all three of
      // se-business's files): the tests below change one record of a group alone.
      expect(parsed).toBeGreaterThanOrEqual(changed);
      expect(parsed).toBeLessThan(after.length / 5);
    } else expect(parsed).toBe(changed);
    expect(night.inserted + night.updated + night.deleted).toBeGreaterThan(0);
    const published = await tablesDigest(pipeline.pool, tables, country);

    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId), force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', rowsStaged: after.length - full.rowsRejected, inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, tables, country)).toEqual(published);
  });

  it('a GML night writes its changed features aside while hashing, byte for byte what a second pass over the file would keep, and only those', async () => {
    // Runs after the it.each above: live holds night 1 of no-cadastre, and its feature hashes; night 2 changes some of them.
    const source = getSource('no-cadastre');
    const artifactPath = input(nights[2], source.id);
    const runId = `spool-${Date.now()}`;
    const client = await pipeline.pool.connect();
    try {
      const scratchDir = await tempDir('record-hashes-spool');
      const hashed = await hashArtifactRecords(client, { pool: pipeline.pool, source, runId, artifactPath, stagingTable: 'unused', incremental: true, scratchDir });
      const changed = [...hashed.changedLines!];
      expect(changed.length).toBeGreaterThan(0);
      const spool = hashed.changedFile!;
      expect(spool).toBeDefined();
      expect(path.dirname(spool.filePath)).toBe(scratchDir);
      const opened = await openInput(artifactPath, source.zipEntry);
      const kept: Buffer[] = [];
      for await (const bytes of keepFeatures(opened.stream, { element: 'Teig', keep: (number) => hashed.changedLines!.has(number) })) kept.push(bytes);
      const secondPass = Buffer.concat(kept);
      expect((await readFile(spool.filePath)).equals(secondPass)).toBe(true);
      await spool.remove();
      expect(existsSync(spool.filePath)).toBe(false);

      // A feature the database finds new but the spool passed over (two hashes alike in their first 48 bits) sends the night back to the second pass.
      const published = await client.query<{ hash: string }>(`SELECT record_hash::text AS hash FROM source_record WHERE source_id = $1 LIMIT 1`, [source.id]);
      const check = (await openRecordSpool(client, source.id, 'check.gml', scratchDir))!;
      expect(check.keep(1, published.rows[0].hash.replace(/-/g, ''))).toBe(false);
      expect(check.keep(2, 'f'.repeat(32))).toBe(true);
      const found = new LineSet();
      found.add(1);
      found.add(2);
      expect(check.finish(found)).toBe(false);
      await check.remove();
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${recordsTableName(source.id, runId)}`);
      client.release();
    }
  });

  it('gives the spool up once more than a quarter of the records hashed are new: a night that changed throughout reads the file again rather than copy it whole', async () => {
    // Runs after the first it.each above: no-address has published line hashes.
    const client = await pipeline.pool.connect();
    try {
      const scratchDir = await tempDir('record-hashes-spool-limit');
      const published = (await client.query<{ hash: string }>(`SELECT record_hash::text AS hash FROM source_record WHERE source_id = 'no-address' LIMIT 1`)).rows[0].hash.replace(/-/g, '');
      const fresh = (n: number) => n.toString(16).padStart(32, 'f');
      const spool = (await openRecordSpool(client, 'no-address', 'limit.csv', scratchDir, { share: 0.25, afterRecords: 8 }))!;
      // Two new records in eight: kept, and the spool goes on.
      for (let n = 1; n <= 8; n++) {
        expect(spool.keep(n, n % 4 === 0 ? fresh(n) : published)).toBe(n % 4 === 0);
        spool.write(Buffer.from(`line ${n}\n`));
      }
      expect(existsSync(spool.filePath)).toBe(true);
      // One more new record: three in nine, over a quarter. Given up: the file is gone and nothing more is kept.
      expect(spool.keep(9, fresh(9))).toBe(false);
      expect(existsSync(spool.filePath)).toBe(false);
      spool.write(Buffer.from('line 9\n'));
      expect(spool.keep(10, fresh(10))).toBe(false);
      expect(existsSync(spool.filePath)).toBe(false);
      const changed = new LineSet();
      for (const n of [4, 8, 9, 10]) changed.add(n);
      // The stage then reads the changed records from the file itself (changedRecordsOnly).
      expect(spool.finish(changed)).toBe(false);
      await spool.remove();
    } finally {
      client.release();
    }
  });

  it.each(['no-address', 'no-energy', 'no-permits'])('%s: a night writes its changed lines aside while hashing, byte for byte what a second pass over the file would give the parser', async (sourceId) => {
    // Runs after the first it.each above: live holds night 1 of the source, and its line hashes; night 2 changes some lines.
    const source = getSource(sourceId);
    const artifactPath = input(nights[2], source.id);
    const runId = `line-spool-${Date.now()}`;
    const client = await pipeline.pool.connect();
    try {
      const scratchDir = await tempDir('record-hashes-line-spool');
      const hashed = await hashArtifactRecords(client, { pool: pipeline.pool, source, runId, artifactPath, stagingTable: 'unused', incremental: true, scratchDir });
      expect([...hashed.changedLines!].length).toBeGreaterThan(0);
      const spool = hashed.changedFile!;
      expect(spool).toBeDefined();
      expect(path.dirname(spool.filePath)).toBe(scratchDir);
      // Named as the data file (the zip's entry), which the parser reads meaning from.
      expect(path.basename(spool.filePath)).toBe((await openInput(artifactPath, source.zipEntry)).fileName);
      const opened = await openInput(artifactPath, source.zipEntry);
      const layout = source.lineRecords as { header: boolean };
      const kept: Buffer[] = [];
      for await (const bytes of blankLinesExcept(opened.stream, { header: layout.header, keep: (line) => hashed.changedLines!.has(line), label: opened.fileName })) kept.push(bytes);
      expect((await readFile(spool.filePath)).equals(Buffer.concat(kept))).toBe(true);
      await spool.remove();
      expect(existsSync(spool.filePath)).toBe(false);
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${recordsTableName(source.id, runId)}`);
      client.release();
    }
  });

  it('fails a night whose changed GML feature is malformed, saying where, and leaves live as it was', async () => {
    // Runs after the it.each above: live holds night 1 of no-cadastre, and its feature hashes.
    const sourceId = 'no-cadastre';
    const before = await tablesDigest(pipeline.pool, ['parcel', 'parcel_property'], 'NO');
    const text = await fileText(nights[1], sourceId);
    const features = await featureElements(nights[1], sourceId, 'Teig');
    const broken = features[4].replace('</app:lokalId>', '</app:lokalIdX>');
    const file = path.join(await tempDir('record-hashes-broken'), 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.gml');
    await writeFile(file, text.replace(features[4], broken));

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night.outcome).toBe('failed');
    expect(night.error).toMatch(/^Malformed or truncated GML at line \d+, column \d+: .*\(in the changed features, which a night parses alone/);
    expect(await tablesDigest(pipeline.pool, ['parcel', 'parcel_property'], 'NO')).toEqual(before);
  });

  it('se-cadastre: a night that changes one area of a property, or removes one, recomputes the property from all its areas', async () => {
    // Runs after the it.each above: live holds night 1 of se-cadastre, and its row hashes.
    const sourceId = 'se-cadastre';
    const tables = ['parcel', 'parcel_property', 'property_register'];
    const file = path.join(await tempDir('record-hashes-se-areas'), getSource(sourceId).inputFileName);
    await copyFile(input(nights[1], sourceId), file);
    const gpkg = new Database(file);
    let changedProperty: string, shrunkProperty: string, conflicting: { ref: string; area: string };
    try {
      // Two properties of two areas each: one area of the first gets a new timestamp, the second area of the other goes.
      const twoAreas = gpkg.prepare(
        `SELECT registerenhetsreferens AS ref FROM registerenhetsomradesyta GROUP BY registerenhetsreferens HAVING count(*) = 2 ORDER BY 1 LIMIT 3`,
      ).all() as { ref: string }[];
      expect(twoAreas).toHaveLength(3);
      [changedProperty, shrunkProperty] = twoAreas.map((row) => row.ref);
      gpkg.prepare(`UPDATE registerenhetsomradesyta SET senastandrad = '2026-11-25T03:00:00' WHERE registerenhetsreferens = ? AND omradesnummer = 2`).run(changedProperty);
      gpkg.prepare(`DELETE FROM registerenhetsomradesyta WHERE registerenhetsreferens = ? AND omradesnummer = 2`).run(shrunkProperty);
      const third = gpkg.prepare(`SELECT objektidentitet AS area FROM registerenhetsomradesyta WHERE registerenhetsreferens = ? AND omradesnummer = 2`).get(twoAreas[2].ref) as { area: string };
      conflicting = { ref: twoAreas[2].ref, area: third.area };
    } finally {
      gpkg.close();
    }
    const plotCounts = async () => Object.fromEntries((await pipeline.pool.query(
      `SELECT register_ref, plot_count FROM property_register WHERE country = 'SE' AND register_ref = ANY($1)`, [[changedProperty, shrunkProperty]],
    )).rows.map((row) => [row.register_ref, row.plot_count]));
    expect(await plotCounts()).toEqual({ [changedProperty]: 2, [shrunkProperty]: 2 });

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night).toMatchObject({ outcome: 'published', rowsStaged: 1 });
    expect(await plotCounts()).toEqual({ [changedProperty]: 2, [shrunkProperty]: 1 });
    const published = await tablesDigest(pipeline.pool, tables, 'SE');
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file, force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, tables, 'SE')).toEqual(published);

    // One area of a property now names another property's register UUID: the night fails, live stays as it was.
    const moved = new Database(file);
    try {
      moved.prepare(`UPDATE registerenhetsomradesyta SET registerenhetsreferens = ? WHERE objektidentitet = ?`).run(changedProperty, conflicting.area);
    } finally {
      moved.close();
    }
    const conflict = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(conflict.outcome).toBe('failed');
    expect(conflict.error).toMatch(/changed areas disagree with unchanged ones on their property .*--force/);
    expect(await tablesDigest(pipeline.pool, tables, 'SE')).toEqual(published);
  });

  it('se-building: a night that changes one part of a building, or removes one, dissolves the building from all its parts', async () => {
    // Runs after the it.each above: live holds night 1 of se-cadastre and se-building, and their row hashes.
    const sourceId = 'se-building';
    const file = path.join(await tempDir('record-hashes-se-parts'), getSource(sourceId).inputFileName);
    await copyFile(input(nights[1], sourceId), file);
    const gpkg = new Database(file);
    let changedBuilding: string, shrunkBuilding: string;
    try {
      const twoParts = gpkg.prepare(`SELECT objektidentitet AS id FROM byggnad GROUP BY objektidentitet HAVING count(*) = 2 ORDER BY 1 LIMIT 2`).all() as { id: string }[];
      expect(twoParts).toHaveLength(2);
      [changedBuilding, shrunkBuilding] = twoParts.map((row) => row.id);
      // The second part of one gets a new timestamp; the second part of the other goes.
      const secondPart = `(SELECT max(fid) FROM byggnad WHERE objektidentitet = ?)`;
      gpkg.prepare(`UPDATE byggnad SET versiongiltigfran = '2026-11-25T03:00:00' WHERE fid = ${secondPart}`).run(changedBuilding);
      gpkg.prepare(`DELETE FROM byggnad WHERE fid = ${secondPart}`).run(shrunkBuilding);
    } finally {
      gpkg.close();
    }
    const footprints = async () => Object.fromEntries((await pipeline.pool.query(
      `SELECT building_id, round(footprint_m2) AS area FROM building WHERE country = 'SE' AND building_id = ANY($1)`, [[changedBuilding, shrunkBuilding]],
    )).rows.map((row) => [row.building_id, Number(row.area)]));
    const before = await footprints();

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    // Both parts of the changed building and the part left of the other.
    expect(night).toMatchObject({ outcome: 'published', rowsStaged: 3, updated: 2, inserted: 0, deleted: 0 });
    const after = await footprints();
    expect(after[changedBuilding]).toBe(before[changedBuilding]);
    expect(after[shrunkBuilding]).toBeLessThan(before[shrunkBuilding]);
    const published = await tablesDigest(pipeline.pool, ['building'], 'SE');
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file, force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, ['building'], 'SE')).toEqual(published);
  });

  it('se-building: a zipped GeoPackage is extracted once, by the hash pass, and publishes what the plain file does', async () => {
    // Runs after the tests above: live holds se-building from night 1 (and the test above's edit); night 2 changes some parts.
    const source = getSource('se-building');
    const gpkg = await readFile(input(nights[2], source.id));
    const zipPath = path.join(await tempDir('record-hashes-zipped-gpkg'), 'byggnad_sverige_gpkg.zip');
    // The data file inside a folder, as Lantmäteriet's downloads hold it: se-building reads the municipality from its name.
    await writeFile(zipPath, await zipOf([{ name: 'lantmateriet/byggnad_sverige.gpkg', content: gpkg }]));

    const runId = `extract-${Date.now()}`;
    const scratchDir = await tempDir('record-hashes-extract');
    const client = await pipeline.pool.connect();
    try {
      const hashed = await hashArtifactRecords(client, { pool: pipeline.pool, source, runId, artifactPath: zipPath, stagingTable: 'unused', incremental: true, scratchDir });
      const extracted = hashed.extractedFile!;
      expect(extracted).toBeDefined();
      expect(extracted.fileName).toBe('byggnad_sverige.gpkg');
      // Into the stage's scratch folder, not beside the artifact (the operator's folder, for a file given by path).
      expect(path.dirname(extracted.path)).toBe(scratchDir);
      expect((await readFile(extracted.path)).equals(gpkg)).toBe(true);
      await extracted.remove();
      expect(existsSync(extracted.path)).toBe(false);
      // A plain GeoPackage is read where it lies: nothing extracted.
      const plain = await hashArtifactRecords(client, { pool: pipeline.pool, source, runId, artifactPath: input(nights[2], source.id), stagingTable: 'unused', incremental: true, scratchDir });
      expect(plain.extractedFile).toBeUndefined();
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${recordsTableName(source.id, runId)}`);
      client.release();
    }

    // A zip is a delivery per municipality (here holding them all): staged whole, from the copy the hash pass extracted.
    const zipped = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: zipPath }), source.id);
    expect(zipped.outcome).toBe('published');
    expect(zipped.rowsStaged + zipped.rowsRejected).toBe(zipped.rowsRead);
    expect(zipped.inserted + zipped.updated + zipped.deleted).toBeGreaterThan(0);
    const published = await tablesDigest(pipeline.pool, ['building'], 'SE');
    // The plain national file of the same night, staged whole, finds nothing to change.
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: source.id, input: input(nights[2], source.id), force: true }), source.id);
    expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, ['building'], 'SE')).toEqual(published);
    // Nothing is left in the worker's scratch folder, nor beside the zip.
    expect(await readdir(path.join(pipeline.dataDir, 'scratch')).catch(() => [])).toEqual([]);
    expect(await readdir(path.dirname(zipPath))).toEqual([path.basename(zipPath)]);
  });

  it('se-building: a night whose file lost more than the limit of buildings fails, counted in buildings, not in their parts', async () => {
    // Runs after the zipped test above: live holds se-building from night 2's file.
    const sourceId = 'se-building';
    const file = path.join(await tempDir('record-hashes-se-lost-buildings'), getSource(sourceId).inputFileName);
    await copyFile(input(nights[2], sourceId), file);
    const live = Number((await pipeline.pool.query(`SELECT count(*) AS n FROM building WHERE country = 'SE'`)).rows[0].n);
    // Just over the 10 % a night may lose (NORDPROP_MAX_ROW_DROP) with the one new building below, all of them buildings of one part.
    const lost = Math.floor(live * 0.1) + 2;
    const gpkg = new Database(file);
    let partsLeft: number;
    try {
      const singles = gpkg.prepare(`SELECT objektidentitet AS id FROM byggnad GROUP BY objektidentitet HAVING count(*) = 1 ORDER BY 1 LIMIT ?`).all(lost + 2) as { id: string }[];
      const twoParts = gpkg.prepare(`SELECT objektidentitet AS id FROM byggnad GROUP BY objektidentitet HAVING count(*) = 2 ORDER BY 1 LIMIT 2`).all() as { id: string }[];
      expect(singles).toHaveLength(lost + 2);
      expect(twoParts).toHaveLength(2);
      const [grown, copied] = singles.slice(lost).map((row) => row.id);
      const [changed, shrunk] = twoParts.map((row) => row.id);
      const remove = gpkg.prepare(`DELETE FROM byggnad WHERE objektidentitet = ?`);
      for (const { id } of singles.slice(0, lost)) remove.run(id);
      // Every kind of touched building: a part changed, a part gone, a part added; and a new building.
      const secondPart = `(SELECT max(fid) FROM byggnad WHERE objektidentitet = ?)`;
      gpkg.prepare(`UPDATE byggnad SET versiongiltigfran = '2026-11-26T03:00:00' WHERE fid = ${secondPart}`).run(changed);
      gpkg.prepare(`DELETE FROM byggnad WHERE fid = ${secondPart}`).run(shrunk);
      const copyPart = (of: string, as: string) => {
        gpkg.prepare(`CREATE TEMP TABLE part AS SELECT * FROM byggnad WHERE objektidentitet = ?`).run(of);
        gpkg.prepare(`UPDATE part SET fid = (SELECT max(fid) + 1 FROM byggnad), objektidentitet = ?, versiongiltigfran = '2026-11-26T03:00:00'`).run(as);
        gpkg.exec(`INSERT INTO byggnad SELECT * FROM part; DROP TABLE part`);
      };
      copyPart(grown, grown);
      copyPart(copied, '00000000-0000-4000-8000-000000000001');
      partsLeft = (gpkg.prepare(`SELECT count(*) AS n FROM byggnad`).get() as { n: number }).n;
    } finally {
      gpkg.close();
    }
    // The multipart buildings' other parts make up for the lost buildings, counted in parts: what the check counted before.
    expect(partsLeft).toBeGreaterThanOrEqual(Math.ceil(live * 0.9));
    const published = await tablesDigest(pipeline.pool, ['building'], 'SE');

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night.outcome).toBe('failed');
    // Staged: the three touched buildings and the new one.
    expect(night.error).toContain(`snapshot has ${live - lost + 1} rows against ${live} live`);
    expect(await tablesDigest(pipeline.pool, ['building'], 'SE')).toEqual(published);

    // What the stage tells validate: the live buildings the night leaves untouched, all but the lost ones and the three touched.
    const runId = `lost-buildings-${Date.now()}`;
    const client = await pipeline.pool.connect();
    try {
      const source = getSource(sourceId);
      const hashed = await hashArtifactRecords(client, { pool: pipeline.pool, source, runId, artifactPath: file, stagingTable: 'unused', incremental: true, scratchDir: await tempDir('record-hashes-lost-buildings') });
      expect(hashed.records).toMatchObject({ increment: true, unchangedRows: live - lost - 3 });
      await hashed.changedFile?.remove();
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${recordsTableName(sourceId, runId)}, ${recordChangesTableName(sourceId, runId)}`);
      client.release();
    }
  });

  it('se-business: a night that changes one file\'s record of an organisation, or removes one, rebuilds the company from all its files', async () => {
    // Runs after the it.each above: live holds night 1 of se-business, and its line hashes.
    const sourceId = 'se-business';
    const members = await bundleMembers(nights[1], sourceId);
    const bolagsverket = members.find((member) => /bolagsverket/i.test(member.name))!;
    const units = members.find((member) => /scb_bulkfil/i.test(member.name))!;
    const joinIdOfEntry = (line: string) => line.split(';')[0].replace(/^"/, '').split('$')[0];
    const joinIdOfUnit = (line: string) => line.split('\t')[0].slice(2);
    const entries = new Set(bolagsverket.lines.slice(1).map(joinIdOfEntry));
    // Three organisations in both registers: one's SCB unit gets another SNI code, another's SCB unit goes, the third goes from every file.
    const [changed, shrunk, gone] = units.lines.slice(1).map(joinIdOfUnit).filter((id) => entries.has(id));
    const ng1 = units.lines[0].split('\t').map((name) => name.toLowerCase()).indexOf('ng1');
    const withCode = (line: string) => line.split('\t').map((value, i) => (i === ng1 ? (value === '62010' ? '68201' : '62010') : value)).join('\t');
    const edited = members.map((member) => ({
      name: member.name,
      content: Buffer.from([
        member.lines[0],
        ...member.lines.slice(1)
          .filter((line) => !line.includes(gone) && !(member === units && joinIdOfUnit(line) === shrunk))
          .map((line) => (member === units && joinIdOfUnit(line) === changed ? withCode(line) : line)),
      ].join('\n') + '\n', 'latin1'),
    }));
    const file = await writeTarBundle(path.join(await tempDir('record-hashes-se-business'), getSource(sourceId).inputFileName), edited);
    const companies = async () => (await pipeline.pool.query(
      `SELECT split_part(org_id, '-', 1) AS id, name, nace_code FROM company WHERE country = 'SE' AND split_part(org_id, '-', 1) = ANY($1) ORDER BY org_id`,
      [[changed, shrunk, gone]],
    )).rows;
    const before = await companies();
    expect(before.map((row) => row.id)).toEqual(expect.arrayContaining([changed, shrunk, gone]));

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night).toMatchObject({ outcome: 'published', deleted: before.filter((row) => row.id === gone).length });
    // Parsed: the two organisations' records in every file, no other (the third's are gone).
    const recordsOf = (id: string) => edited.reduce((n, member) => n + member.content.toString('latin1').split('\n').filter((line) => line.includes(id)).length, 0);
    expect(night.rowsStaged + night.rowsRejected).toBe(recordsOf(changed) + recordsOf(shrunk));
    const after = await companies();
    const name = (rows: typeof before, id: string) => rows.find((row) => row.id === id)?.name;
    // The names are Bolagsverket's, whose lines did not change: read again with the changed unit's, merged as before.
    expect(name(after, changed)).toBe(name(before, changed));
    expect(name(after, shrunk)).toBe(name(before, shrunk));
    expect(after.find((row) => row.id === changed)?.nace_code).toMatch(/^(62\.010|68\.201)$/);
    expect(after.find((row) => row.id === changed)?.nace_code).not.toBe(before.find((row) => row.id === changed)?.nace_code);
    expect(after.find((row) => row.id === shrunk)?.nace_code).toBeNull();
    expect(after.some((row) => row.id === gone)).toBe(false);

    const tables = ['company', 'company_address', 'company_workplace'];
    const published = await tablesDigest(pipeline.pool, tables, 'SE');
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file, force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, tables, 'SE')).toEqual(published);
  });

  it('se-business: a night whose changed line has a broken organisation number quarantines it, rebuilds its organisation from the rest, as a full load would', async () => {
    // Runs after the tests above: live holds se-business as a night left it, and its line hashes.
    const sourceId = 'se-business';
    const members = await bundleMembers(nights[1], sourceId);
    const bolagsverket = members.find((member) => /bolagsverket/i.test(member.name))!;
    const units = members.find((member) => /scb_bulkfil/i.test(member.name))!;
    const unitIds = new Set(units.lines.slice(1).map((line) => line.split('\t')[0].slice(2)));
    // An organisation in both registers: its Bolagsverket entry's number loses its check digit.
    const entry = bolagsverket.lines.slice(1).find((line) => unitIds.has(line.split(';')[0].replace(/^"/, '').split('$')[0]))!;
    const id = entry.split(';')[0].replace(/^"/, '').split('$')[0];
    const broken = entry.replace(`"${id}$`, `"${id.slice(0, 9)}${(Number(id[9]) + 1) % 10}$`);
    const edited = members.map((member) => ({
      name: member.name,
      content: Buffer.from(member.lines.map((line) => (line === entry ? broken : line)).join('\n') + '\n', 'latin1'),
    }));
    const file = await writeTarBundle(path.join(await tempDir('record-hashes-se-business-broken'), getSource(sourceId).inputFileName), edited);
    const nameOf = async () => (await pipeline.pool.query(`SELECT name FROM company WHERE country = 'SE' AND split_part(org_id, '-', 1) = $1`, [id])).rows.map((row) => row.name);
    const before = await nameOf();

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night.outcome).toBe('published');
    const rejects = await pipeline.pool.query(
      `SELECT reason FROM source_reject WHERE run_id = (SELECT run_id FROM source_run WHERE source_id = $1 ORDER BY started_at DESC LIMIT 1) AND disposition = 'rejected'`,
      [sourceId],
    );
    expect(rejects.rows.map((row) => row.reason)).toContainEqual(expect.stringMatching(/^bolagsverket_bulkfil\.txt line \d+: organisationsidentitet .* fails its check digit/));
    // The organisation is left with its SCB unit: a company under SCB's name.
    const after = await nameOf();
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
    const tables = ['company', 'company_address', 'company_workplace'];
    const published = await tablesDigest(pipeline.pool, tables, 'SE');
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file, force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await tablesDigest(pipeline.pool, tables, 'SE')).toEqual(published);
  });

  it('se-business: a night whose file lost SCB\'s workplaces fails, counted in companies and workplaces as live holds them, and leaves live as it was', async () => {
    // Runs after the se-business tests above. Each company is two records (Bolagsverket's and
    // SCB's), so without the workplaces' file the records staged still outnumbered the live rows.
    const sourceId = 'se-business';
    const members = (await bundleMembers(nights[1], sourceId)).filter((member) => !/arbetsstallen/i.test(member.name));
    expect(members).toHaveLength(2);
    const file = await writeTarBundle(
      path.join(await tempDir('record-hashes-se-business-no-workplaces'), getSource(sourceId).inputFileName),
      members.map((member) => ({ name: member.name, content: Buffer.from(member.lines.join('\n') + '\n', 'latin1') })),
    );
    const count = async (table: string) => Number((await pipeline.pool.query(`SELECT count(*) AS n FROM ${table} WHERE ${table === 'company' ? "country = 'SE'" : "org_scheme = '0007'"}`)).rows[0].n);
    const [companies, workplaces] = [await count('company'), await count('company_workplace')];
    expect(workplaces).toBeGreaterThan((companies + workplaces) * 0.1);
    const tables = ['company', 'company_address', 'company_workplace'];
    const published = await tablesDigest(pipeline.pool, tables, 'SE');

    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
    expect(night.outcome).toBe('failed');
    expect(night.error).toMatch(new RegExp(`^the merge left \\d+ rows against ${companies + workplaces} live \\([\\d.]+% fewer, over the 10% limit\\)`));
    expect(await tablesDigest(pipeline.pool, tables, 'SE')).toEqual(published);
  });

  it('se-transactions: a person keeps the spelling of their latest sale through nights that change or remove their sales, as a full load would', async () => {
    // Runs after the it.each above: live holds night 1 of se-transactions, and its line hashes.
    const sourceId = 'se-transactions';
    const tables = ['property_transaction', 'transaction_party', 'party_name', 'owner', 'person'];
    const members = await bundleMembers(nights[1], sourceId);
    const sales = await salesLines(nights[1]);
    const parsed = sales.map((line) => JSON.parse(line) as { kopId: string; inskrivningsdag: string; kopare: { personId?: string; namn: string }[]; saljare: { personId?: string; namn: string }[] });
    // A person named in two sales on different days: a buyer who sold again (the seller of the later one).
    const later = parsed.find((sale) => sale.saljare.some((party) => party.personId && parsed.some((other) =>
      other.inskrivningsdag < sale.inskrivningsdag && other.kopare.some((buyer) => buyer.personId === party.personId))))!;
    expect(later).toBeDefined();
    const person = later.saljare.find((party) => party.personId && parsed.some((other) => other.inskrivningsdag < later.inskrivningsdag && other.kopare.some((buyer) => buyer.personId === party.personId)))!;
    const earlier = parsed.find((sale) => sale.inskrivningsdag < later.inskrivningsdag && sale.kopare.some((buyer) => buyer.personId === person.personId))!;
    const respelled = 'Åsa Annanstavning';
    const bundleWith = async (label: string, lines: string[], codeTable?: (name: string, lines: string[]) => string[]) =>
      writeTarBundle(path.join(await tempDir(`record-hashes-se-transactions-${label}`), getSource(sourceId).inputFileName), members.map((member) =>
        /\.jsonl$/i.test(member.name)
          ? { name: member.name, content: lines.join('\n') + '\n' }
          : { name: member.name, content: Buffer.from((codeTable?.(member.name, member.lines) ?? member.lines).join('\n') + '\n', 'latin1') }));
    const nameOf = async (id: string) => (await pipeline.pool.query(`SELECT name FROM person WHERE country = 'SE' AND person_id = $1`, [id])).rows[0]?.name;
    const nightThenFull = async (file: string) => {
      const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file }), sourceId);
      expect(night.outcome).toBe('published');
      const published = await tablesDigest(pipeline.pool, tables, 'SE');
      const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: file, force: true }), sourceId);
      expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
      expect(await tablesDigest(pipeline.pool, tables, 'SE')).toEqual(published);
      return night;
    };
    expect(await nameOf(person.personId!)).toBe(person.namn);

    // The earlier sale spells the person anew: the later sale's spelling stays theirs.
    const respell = (line: string) => (JSON.parse(line).kopId === earlier.kopId ? line.replace(JSON.stringify(person.namn), JSON.stringify(respelled)) : line);
    const respelledLines = sales.map(respell);
    expect(respelledLines).not.toEqual(sales);
    const first = await nightThenFull(await bundleWith('respelled', respelledLines));
    expect(first.rowsStaged + first.rowsRejected).toBe(1);
    expect(await nameOf(person.personId!)).toBe(person.namn);

    // The later sale leaves the register: the person is named as the earlier sale spells them, and its buyers hold the property again.
    const withoutLater = respelledLines.filter((line) => JSON.parse(line).kopId !== later.kopId);
    const second = await nightThenFull(await bundleWith('without-later', withoutLater));
    expect(second).toMatchObject({ rowsStaged: 0, deleted: 1 });
    expect(await nameOf(person.personId!)).toBe(respelled);
    const owners = await pipeline.pool.query(`SELECT person_id FROM owner WHERE country = 'SE' AND person_id = $1`, [person.personId]);
    expect(owners.rows).toHaveLength(1);

    // A code table renamed a fång: every sale reads as changed, and those of that fång carry the new name.
    const utf8 = (line: string) => Buffer.from(line, 'latin1').toString('utf8');
    const renamed = (name: string, lines: string[]) =>
      (/K_FANGESKOD/i.test(name) ? lines.map((line) => Buffer.from(utf8(line).replace(/;Köp$/, ';Köp (renamed)'), 'utf8').toString('latin1')) : lines);
    const third = await nightThenFull(await bundleWith('renamed-code', withoutLater, renamed));
    expect(third).toMatchObject({ rowsUnchanged: 0, rowsStaged: withoutLater.length - third.rowsRejected });
    expect(third.updated).toBeGreaterThan(0);
    const kinds = await pipeline.pool.query(`SELECT DISTINCT register_kind FROM property_transaction WHERE country = 'SE' AND kind = 'SALE'`);
    expect(kinds.rows.map((row) => row.register_kind)).toContain('Köp (renamed)');
  });

  it('stages the whole file when live no longer matches what was published (rows deleted by hand)', async () => {
    const { sourceId, tables: [table], header } = SOURCES[0];
    const deleted = await pipeline.pool.query(`DELETE FROM ${table} WHERE country = 'NO' AND address_id IN (SELECT address_id FROM ${table} WHERE country = 'NO' ORDER BY address_id LIMIT 5)`);
    expect(deleted.rowCount).toBe(5);
    const lines = await recordLines(nights[2], sourceId, header);
    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[2], sourceId) }), sourceId);
    expect(night).toMatchObject({ outcome: 'published', rowsRead: lines.length, rowsStaged: lines.length - night.rowsRejected });
    expect(night.inserted).toBeGreaterThanOrEqual(5);
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[2], sourceId), force: true }), sourceId);
    expect(full).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
  });

  it('quarantines a changed line whose key an unchanged line holds, and keeps the live row', async () => {
    const { sourceId } = SOURCES[0];
    const [headerLine, ...lines] = await fileLines(nights[1], sourceId);
    const dir = await tempDir('record-hashes-duplicate');
    const national = path.join(dir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.csv');
    await writeFile(national, [headerLine, ...lines].join('\n') + '\n');
    const loaded = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: national, force: true }), sourceId);
    expect(loaded.outcome).toBe('published');
    const before = await tablesDigest(pipeline.pool, ['address'], 'NO');

    // The same file with a second line for the tenth address, its text changed.
    const columns = headerLine.toLowerCase().split(';');
    const tenth = lines[9].split(';');
    const text = columns.indexOf('adressetekst');
    const addressId = tenth[columns.indexOf('lokalid')];
    tenth[text] = `${tenth[text]} B`;
    await writeFile(national, [headerLine, ...lines, tenth.join(';')].join('\n') + '\n');
    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: national }), sourceId);
    expect(night).toMatchObject({ outcome: 'published', rowsRead: lines.length + 1, rowsUnchanged: lines.length, rowsStaged: 0, inserted: 0, updated: 0, deleted: 0 });
    const rejects = await pipeline.pool.query(`SELECT position, reason FROM source_reject WHERE run_id = (SELECT run_id FROM source_run WHERE source_id = $1 ORDER BY started_at DESC LIMIT 1) AND disposition = 'rejected'`, [sourceId]);
    expect(rejects.rows).toContainEqual({ position: lines.length + 2, reason: `duplicate key address_id=${addressId} (unchanged at position 11)` });
    expect(await tablesDigest(pipeline.pool, ['address'], 'NO')).toEqual(before);
  });

  it('a changed line before the unchanged line that holds its key takes the key, as a full load of the file would', async () => {
    const { sourceId } = SOURCES[0];
    const [headerLine, ...lines] = await fileLines(nights[1], sourceId);
    const dir = await tempDir('record-hashes-duplicate-first');
    const national = path.join(dir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.csv');
    await writeFile(national, [headerLine, ...lines].join('\n') + '\n');
    expect(sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: national, force: true }), sourceId).outcome).toBe('published');

    // A second line for the tenth address, its text changed, as the file's first record (line 2):
    // the tenth address's own line (now line 12) is the later duplicate.
    const columns = headerLine.toLowerCase().split(';');
    const tenth = lines[9].split(';');
    const addressId = tenth[columns.indexOf('lokalid')];
    tenth[columns.indexOf('adressetekst')] += ' B';
    await writeFile(national, [headerLine, tenth.join(';'), ...lines].join('\n') + '\n');
    const night = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: national }), sourceId);
    // Read: every line; the tenth address's own line was unchanged, and is the reject.
    expect(night).toMatchObject({ outcome: 'published', rowsRead: lines.length + 1, rowsUnchanged: lines.length - 1, rowsStaged: 1, rowsRejected: 1, inserted: 0, updated: 1, deleted: 0 });
    const lastRejects = async () => (await pipeline.pool.query(
      `SELECT position, reason FROM source_reject WHERE run_id = (SELECT run_id FROM source_run WHERE source_id = $1 ORDER BY started_at DESC LIMIT 1) AND disposition = 'rejected' ORDER BY position`,
      [sourceId],
    )).rows;
    expect(await lastRejects()).toContainEqual({ position: 12, reason: `duplicate key address_id=${addressId} (first at position 2)` });
    const afterNight = await tablesDigest(pipeline.pool, ['address'], 'NO');

    // The next night (the file as it was, one empty line more): the losing line is read again and quarantined again.
    await writeFile(national, [headerLine, tenth.join(';'), ...lines].join('\n') + '\n\n');
    const next = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: national }), sourceId);
    expect(next).toMatchObject({ outcome: 'published', rowsUnchanged: lines.length, rowsStaged: 0, inserted: 0, updated: 0, deleted: 0 });
    expect(await lastRejects()).toContainEqual({ position: 12, reason: `duplicate key address_id=${addressId} (unchanged at position 2)` });

    // A full load of the same file changes nothing and rejects the same line.
    const full = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: national, force: true }), sourceId);
    expect(full).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 0 });
    expect(await lastRejects()).toContainEqual({ position: 12, reason: `duplicate key address_id=${addressId} (first at position 2)` });
    expect(await tablesDigest(pipeline.pool, ['address'], 'NO')).toEqual(afterNight);
  });

  it('stages the whole national file again after a regional extract was loaded', async () => {
    const { sourceId, header } = SOURCES[0];
    const [headerLine, ...lines] = await fileLines(nights[2], sourceId);
    const column = headerLine.toLowerCase().split(';').indexOf('kommunenummer');
    const municipality = lines[0].split(';')[column];
    const extract = path.join(nights[2].outDir, `Basisdata_${municipality}_Kommune_25833_MatrikkelenAdresse_CSV.csv`);
    await writeFile(extract, [headerLine, ...lines.filter((line) => line.split(';')[column] === municipality)].join('\n') + '\n');
    const regional = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: extract }), sourceId);
    expect(regional.outcome).toBe('published');
    expect(regional.rowsUnchanged).toBe(0);

    const national = sourceOf(await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId, input: input(nights[1], sourceId) }), sourceId);
    expect(national).toMatchObject({ outcome: 'published', rowsRead: (await recordLines(nights[1], sourceId, header)).length, rowsUnchanged: 0 });
    expect(national.rowsStaged + national.rowsRejected).toBe(national.rowsRead);
  });
});
