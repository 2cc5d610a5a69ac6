import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_ADDRESS_ZIP } from '../support/real-data.js';
import { startPipeline, type TestPipeline } from '../support/pipeline.js';
import { liveDigest, liveCount } from '../support/live-snapshot.js';
import { runBackfill, sourceOf } from '../support/runs.js';
import { ingestWorkflowId } from '../../workflows/refresh.js';
import { OUTCOME_KEY } from '../../lib/temporal/search-attribute-keys.js';

let pipeline: TestPipeline;

beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('backfill of the real Matrikkelen address extract', () => {
  it('publishes every one of its 47 rows, with cadastre ids and WGS84 points in Kristiansand', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP });
    expect(summary.outcome).toBe('succeeded');
    expect(sourceOf(summary, 'no-address')).toMatchObject({ outcome: 'published', rowsRead: 47, rowsStaged: 47, rowsRejected: 0, inserted: 47, updated: 0, deleted: 0 });

    const row = (
      await pipeline.pool.query(
        `SELECT cadastre_id, address_text, postal_code, municipality_code, ST_X(geom) AS lon, ST_Y(geom) AS lat, source_srid
         FROM address WHERE address_id = '219136687'`,
      )
    ).rows[0];
    // Tyrihansveien 38, gnr 97 bnr 90 in 4204; Nord 6466460.67 Øst 92406.38 in EPSG:25833.
    expect(row).toMatchObject({ cadastre_id: '4204-97-90-0-0', address_text: 'Tyrihansveien 38', postal_code: '4638', municipality_code: '4204', source_srid: 25833 });
    // PROJ's cs2cs EPSG:25833 → EPSG:4326 gives 58.15058831 N, 8.06778329 E.
    expect(row.lon).toBeCloseTo(8.06778329, 6);
    expect(row.lat).toBeCloseTo(58.15058831, 6);
  });

  it('does nothing on the same input again, and changes nothing when forced to reload it', async () => {
    const before = await liveDigest(pipeline.pool);
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP });
    expect(sourceOf(again, 'no-address')).toMatchObject({ outcome: 'unchanged', rowsRead: 0, inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP, force: true });
    expect(sourceOf(forced, 'no-address')).toMatchObject({ outcome: 'published', rowsRead: 47, inserted: 0, updated: 0, deleted: 0 });
    expect(await liveDigest(pipeline.pool)).toEqual(before);
  });

  it('fails a truncated download with a clear reason and leaves live data byte-identical', async () => {
    const before = await liveDigest(pipeline.pool);
    const truncated = path.join(pipeline.dataDir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip');
    const bytes = await readFile(REAL_ADDRESS_ZIP);
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: truncated });
    expect(summary.outcome).toBe('failed');
    expect(sourceOf(summary, 'no-address').error).toMatch(/not a readable zip archive \(truncated or corrupt\?\)/);
    expect(await liveDigest(pipeline.pool)).toEqual(before);
    // Where a data engineer looks first: the source's workflow failed, the run says so in a search attribute.
    const child = await pipeline.client.workflow.getHandle(ingestWorkflowId('no-address', summary.runId)).describe();
    expect(child.status.name).toBe('FAILED');
    const parent = await pipeline.client.workflow.getHandle(`backfill-${summary.runId}`).describe();
    expect(parent.status.name).toBe('COMPLETED');
    expect(parent.typedSearchAttributes.get(OUTCOME_KEY)).toBe('failed');
  });

  it('fails a checksum mismatch before staging anything', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP, force: true, expectedSha256: '0'.repeat(64) });
    expect(sourceOf(summary, 'no-address')).toMatchObject({ outcome: 'failed', rowsRead: 0 });
    expect(sourceOf(summary, 'no-address').error).toMatch(/checksum mismatch/);
  });

  it('refuses a snapshot that is over 10% smaller than live unless forced', async () => {
    const before = await liveDigest(pipeline.pool);
    // The same national file with 40 of its 47 rows: a 15% drop.
    const csv = await readFile(path.join(__dirname, '../fixtures/no/address/kristiansand-40-rows.csv'), 'utf8');
    const shrunk = path.join(pipeline.dataDir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.csv');
    await writeFile(shrunk, csv);
    const refused = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: shrunk });
    expect(sourceOf(refused, 'no-address').outcome).toBe('failed');
    expect(sourceOf(refused, 'no-address').error).toMatch(/snapshot has 40 rows against 47 live \(14\.9% fewer/);
    expect(await liveDigest(pipeline.pool)).toEqual(before);

    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: shrunk, force: true });
    expect(sourceOf(forced, 'no-address')).toMatchObject({ outcome: 'published', inserted: 0, updated: 0, deleted: 7 });
    expect(await liveCount(pipeline.pool, 'address')).toBe(40);
  });

  it('loads a municipality extract without touching other municipalities', async () => {
    await copyFile(REAL_ADDRESS_ZIP, path.join(pipeline.dataDir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip'));
    const restored = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP, force: true });
    expect(sourceOf(restored, 'no-address')).toMatchObject({ inserted: 7, deleted: 0 });
    const oslo = path.join(pipeline.dataDir, 'Basisdata_0301_Oslo_25833_MatrikkelenAdresse_CSV.csv');
    await writeFile(oslo, await readFile(path.join(__dirname, '../fixtures/no/address/oslo-2-rows.csv'), 'utf8'));
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: oslo });
    expect(sourceOf(summary, 'no-address')).toMatchObject({ outcome: 'published', inserted: 2, deleted: 0 });
    expect(await liveCount(pipeline.pool, 'address')).toBe(49);
  });

  it('judges a file unchanged against what live holds, not against the last run of the same path', async () => {
    // Live holds the 40-row file now; the 47-row file was published before, from the same path it is read from now.
    const shrunk = path.join(pipeline.dataDir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.csv');
    await writeFile(shrunk, await readFile(path.join(__dirname, '../fixtures/no/address/kristiansand-40-rows.csv'), 'utf8'));
    await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: shrunk, force: true });
    expect(await liveCount(pipeline.pool, 'address', 'NO')).toBe(40);
    const reloaded = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-address', input: REAL_ADDRESS_ZIP });
    expect(sourceOf(reloaded, 'no-address')).toMatchObject({ outcome: 'published', inserted: 7 });
    expect(await liveCount(pipeline.pool, 'address', 'NO')).toBe(47);
  });
});
