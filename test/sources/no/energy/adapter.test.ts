import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tableDigest } from '../../../support/live-snapshot.js';
import { rejectsOf, withRejectCeiling } from '../published.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/energy');
const VALID = path.join(FIXTURES, 'enova-2023.csv');
const MALFORMED = path.join(FIXTURES, 'enova-malformed.csv');

let pipeline: TestPipeline;
beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('no-energy: backfill of an Enova energiattest file through the worker', () => {
  it('publishes each certificate on its property and building, with label, heating grade and validity', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-energy', input: VALID });
    expect(summary.outcome).toBe('succeeded');
    expect(sourceOf(summary, 'no-energy')).toMatchObject({ outcome: 'published', rowsRead: 6, rowsStaged: 6, rowsRejected: 0, inserted: 6, updated: 0, deleted: 0 });

    const { rows } = await pipeline.pool.query(
      `SELECT certificate_id, cadastre_id, building_number, municipality_code, label, heating_grade, issued_date::text, valid_to_date::text,
              source, address_text, postal_code, unit_number, fossil_share, issued_at::text
       FROM energy_certificate WHERE country = 'NO' ORDER BY certificate_id`,
    );
    expect(rows.map((r) => r.certificate_id)).toEqual([
      'Energiattest-2021-000300', 'Energiattest-2022-004711', 'Energiattest-2023-000042', 'Energiattest-2023-000101', 'Energiattest-2024-000017', 'randomguidgoeshere',
    ]);
    expect(rows.find((r) => r.certificate_id === 'Energiattest-2023-000101')).toEqual({
      certificate_id: 'Energiattest-2023-000101', cadastre_id: '0301-208-327-0-12', building_number: '80012345', municipality_code: '0301',
      label: 'D', heating_grade: 'ORANGE', issued_date: '2023-03-14', valid_to_date: '2033-03-14', source: 'ENERGY_AGENCY',
      address_text: 'Kirkeveien 12', postal_code: '0356', unit_number: 'H0203', fossil_share: 0.05, issued_at: '2023-03-14 10:22:31.123456',
    });
    // Issued on New Year's Eve at 23:45 local time: the date stays the register's own.
    expect(rows.find((r) => r.certificate_id === 'Energiattest-2023-000042')).toMatchObject({ issued_date: '2023-12-31', valid_to_date: '2033-12-31', heating_grade: 'YELLOW' });
  });

  it('changes nothing on the same file again, nor when forced to reload it', async () => {
    const before = await tableDigest(pipeline.pool, 'energy_certificate');
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-energy', input: VALID });
    expect(sourceOf(again, 'no-energy')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-energy', input: VALID, force: true });
    expect(sourceOf(forced, 'no-energy')).toMatchObject({ outcome: 'published', rowsRead: 6, inserted: 0, updated: 0, deleted: 0 });
    expect(await tableDigest(pipeline.pool, 'energy_certificate')).toBe(before);
  });

  it('fails a file that is mostly bad rows and leaves the live certificates as they were', async () => {
    const before = await tableDigest(pipeline.pool, 'energy_certificate');
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-energy', input: MALFORMED });
    expect(sourceOf(summary, 'no-energy').outcome).toBe('failed');
    expect(sourceOf(summary, 'no-energy').error).toMatch(/13 of 14 rows rejected/);
    expect(await tableDigest(pipeline.pool, 'energy_certificate')).toBe(before);
  });

  it('with the ceiling lifted, quarantines every bad row and the duplicate certificate with reasons, and replaces only its municipality', async () => {
    const summary = await withRejectCeiling('1', () => runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-energy', input: MALFORMED }));
    // The extract covers Oslo (0301) only: Oslo's old certificate leaves, the other municipalities' stay.
    expect(sourceOf(summary, 'no-energy')).toMatchObject({ outcome: 'published', rowsRead: 14, rowsStaged: 1, rowsRejected: 13, inserted: 1, deleted: 1 });
    const reasons = await rejectsOf(pipeline.pool, summary.runId, 'no-energy');
    expect(Object.keys(reasons).map(Number)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15]);
    expect(reasons[7]).toBe('Oppvarmingskarakter "Purple" is not a heating-grade colour (Red, Orange, Yellow, LightGreen, Green)');
    expect(reasons[15]).toBe('duplicate key certificate_id=Energiattest-2023-900013 (first at position 14)');
    const live = await pipeline.pool.query(`SELECT municipality_code, count(*)::int AS n FROM energy_certificate GROUP BY 1 ORDER BY 1`);
    expect(live.rows).toEqual([
      { municipality_code: '0301', n: 1 }, { municipality_code: '1103', n: 1 }, { municipality_code: '1234', n: 1 },
      { municipality_code: '3207', n: 1 }, { municipality_code: '4601', n: 1 }, { municipality_code: '5001', n: 1 },
    ]);
    const kept = await pipeline.pool.query(`SELECT cadastre_id, label FROM energy_certificate WHERE certificate_id = 'Energiattest-2023-900013'`);
    expect(kept.rows).toEqual([{ cadastre_id: '0301-1-3-0-0', label: 'E' }]);
  });
});
