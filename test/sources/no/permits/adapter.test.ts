import { createReadStream } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMIT_STAGING_COLUMNS, noPermits } from '../../../../sources/no/permits/adapter.js';
import type { CellValue, ParsedRecord } from '../../../../sources/source-adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tableDigest } from '../../../support/live-snapshot.js';
import { rejectsOf, withRejectCeiling } from '../published.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/permits');

async function readFixture(name: string): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  for await (const batch of noPermits.parse(createReadStream(path.join(FIXTURES, name)), { fileName: name })) records.push(...batch);
  return records;
}
type Row = Extract<ParsedRecord, { kind: 'row' }>;
type Reject = Extract<ParsedRecord, { kind: 'reject' }>;
const rows = (records: ParsedRecord[]) => records.filter((r): r is Row => r.kind === 'row');
const rejects = (records: ParsedRecord[]) => records.filter((r): r is Reject => r.kind === 'reject');
const named = (row: Row): Record<string, CellValue> => Object.fromEntries(PERMIT_STAGING_COLUMNS.map((c, i) => [c.name, row.values[i]]));

describe('no-permits exchange file (JSON Lines)', () => {
  it('maps byggesaker to permit cases keyed by municipality and Noark case number', async () => {
    const records = await readFixture('byggesaker.jsonl');
    expect(rejects(records)).toEqual([]);
    const [office, facade, change, bergen, section] = rows(records).map(named);
    expect(office).toEqual({
      case_id: '0301-2019/48211', cadastre_id: '0301-208-327-0-0', municipality_code: '0301', case_number: '2019/48211', building_number: '80012345',
      kind: 'nyttbyggnaringsformal', status: 'COMPLETED', description: 'Oppføring av kontorbygg, 7 etasjer', applied_date: '2019-02-04',
      decided_date: '2019-06-17', application_type: 'RS', completed_date: '2022-11-30',
    });
    expect(facade).toMatchObject({ status: 'APPROVED', application_type: 'ET', decided_date: '2024-04-12', completed_date: null });
    expect(change).toMatchObject({ status: 'IN_PROGRESS', decided_date: null, building_number: null });
    expect(bergen).toMatchObject({ case_id: '4601-2023/9001', status: 'REJECTED' });
    expect(section).toMatchObject({ cadastre_id: '3207-243-898-0-3', status: 'WITHDRAWN', application_type: null, description: null });
  });

  it('rejects every malformed case with its line number and reason', async () => {
    const records = await readFixture('byggesaker-malformed.jsonl');
    const reasons = Object.fromEntries(rejects(records).map((r) => [r.position, r.reason]));
    expect(reasons).toEqual({
      1: 'status "Innvilget" needs a vedtaksdato',
      2: 'vedtaksdato 2024-01-01 is before mottattdato 2024-03-01',
      3: 'schema no-permits: /status must be equal to one of the allowed values',
      4: 'schema no-permits: /saksnummer must be object',
      5: 'schema no-permits: /mottattdato must match format "date"',
      6: 'schema no-permits: /tiltakstype must match pattern "^[a-zæøå0-9]{2,60}$"',
      7: 'status "Ferdigattest" needs a ferdigattestdato',
      8: "schema no-permits: (record) must have required property 'eiendomByggested'",
      9: 'schema no-permits: (record) must be object',
    });
    // Two lines with the same case number both parse; validation quarantines the second.
    expect(rows(records).map((r) => [r.position, r.values[0]])).toEqual([[10, '0301-2024/10'], [11, '0301-2024/10']]);
  });
});

describe('no-permits: backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline();
  });
  afterAll(async () => {
    await pipeline?.stop();
  });
  const VALID = path.join(FIXTURES, 'byggesaker.jsonl');

  it("publishes the cases, and a property's cases read newest first", async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input: VALID });
    expect(sourceOf(summary, 'no-permits')).toMatchObject({ outcome: 'published', rowsRead: 5, rowsStaged: 5, rowsRejected: 0, inserted: 5, deleted: 0 });
    // The order the API lists them in, served by building_permit_cadastre_idx.
    const { rows } = await pipeline.pool.query(
      `SELECT case_number, kind, status, applied_date::text, decided_date::text, completed_date::text
       FROM building_permit WHERE country = 'NO' AND cadastre_id = '0301-208-327-0-0' ORDER BY applied_date DESC, case_id`,
    );
    expect(rows).toEqual([
      { case_number: '2025/377', kind: 'bruksendring', status: 'IN_PROGRESS', applied_date: '2025-08-19', decided_date: null, completed_date: null },
      { case_number: '2024/1203', kind: 'fasadeendring', status: 'APPROVED', applied_date: '2024-03-01', decided_date: '2024-04-12', completed_date: null },
      { case_number: '2019/48211', kind: 'nyttbyggnaringsformal', status: 'COMPLETED', applied_date: '2019-02-04', decided_date: '2019-06-17', completed_date: '2022-11-30' },
    ]);
  });

  it('changes nothing on the same file again, nor when forced to reload it', async () => {
    const before = await tableDigest(pipeline.pool, 'building_permit');
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input: VALID });
    expect(sourceOf(again, 'no-permits')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input: VALID, force: true });
    expect(sourceOf(forced, 'no-permits')).toMatchObject({ outcome: 'published', rowsRead: 5, inserted: 0, updated: 0, deleted: 0 });
    expect(await tableDigest(pipeline.pool, 'building_permit')).toBe(before);
  });

  it('quarantines schema violations, rule breaches and a duplicate case number with reasons', async () => {
    const input = path.join(FIXTURES, 'byggesaker-malformed.jsonl');
    const summary = await withRejectCeiling('1', () => runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-permits', input, force: true }));
    // Oslo-only file, forced past the row-drop check: Oslo's three cases are replaced by the one good line;
    // Bergen and Nordre Follo keep theirs.
    expect(sourceOf(summary, 'no-permits')).toMatchObject({ outcome: 'published', rowsRead: 11, rowsStaged: 1, rowsRejected: 10, inserted: 1, deleted: 3 });
    const reasons = await rejectsOf(pipeline.pool, summary.runId, 'no-permits');
    expect(Object.keys(reasons).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11]);
    expect(reasons[11]).toBe('duplicate key case_id=0301-2024/10 (first at position 10)');
    const live = await pipeline.pool.query(`SELECT case_id, cadastre_id, status FROM building_permit WHERE municipality_code = '0301'`);
    expect(live.rows).toEqual([{ case_id: '0301-2024/10', cadastre_id: '0301-1-2-0-0', status: 'RECEIVED' }]);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM building_permit`)).rows[0].n).toBe(3);
  });
});
