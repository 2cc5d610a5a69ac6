import { createReadStream } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATION_STAGING_COLUMNS, noCertification } from '../../../../sources/no/certification/adapter.js';
import type { CellValue, ParsedRecord } from '../../../../sources/source-adapter.js';
import { startPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { runBackfill, sourceOf } from '../../../support/runs.js';
import { tableDigest } from '../../../support/live-snapshot.js';
import { rejectsOf, withRejectCeiling } from '../published.js';

const FIXTURES = path.join(__dirname, '../../../fixtures/no/certification');

async function readFixture(name: string): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  for await (const batch of noCertification.parse(createReadStream(path.join(FIXTURES, name)), { fileName: name })) records.push(...batch);
  return records;
}
type Row = Extract<ParsedRecord, { kind: 'row' }>;
type Reject = Extract<ParsedRecord, { kind: 'reject' }>;
const rows = (records: ParsedRecord[]) => records.filter((r): r is Row => r.kind === 'row');
const rejects = (records: ParsedRecord[]) => records.filter((r): r is Reject => r.kind === 'reject');
const named = (row: Row): Record<string, CellValue> => Object.fromEntries(CERTIFICATION_STAGING_COLUMNS.map((c, i) => [c.name, row.values[i]]));

describe('no-certification exchange file (JSON Lines)', () => {
  it('maps each scheme to the store: scheme, rating code, stage, cadastre id and building', async () => {
    const records = await readFixture('certifications.jsonl');
    expect(rejects(records)).toEqual([]);
    // Line 4 is blank and skipped; positions are file lines.
    expect(rows(records).map((r) => r.position)).toEqual([1, 2, 3, 5, 6, 7]);
    const [breeam, inUse, leed, svane, design, well] = rows(records).map(named);
    expect(breeam).toEqual({
      certification_id: 'BREEAM-NOR-0412', cadastre_id: '0301-208-327-0-0', building_number: '80012345', municipality_code: '0301',
      scheme: 'BREEAM-NOR', rating: 'EXCELLENT', certified_date: '2023-05-12', certified_area_m2: 12450.5, project_name: 'Kirkeveien Næringsbygg',
      scheme_version: 'v6.0', stage: 'POST_CONSTRUCTION', score_pct: 74.3, valid_to_date: null, certified_by: 'Grønn Byggallianse',
    });
    expect(inUse).toMatchObject({ scheme: 'BREEAM-IN-USE', rating: 'VERY_GOOD', stage: 'IN_USE', valid_to_date: '2025-09-01', cadastre_id: '4601-164-1203-0-0' });
    expect(leed).toMatchObject({ scheme: 'LEED', rating: 'GOLD', stage: null, certified_area_m2: 23100 });
    expect(svane).toMatchObject({ scheme: 'SVANEMERKET', rating: 'SVANEMERKET', certified_by: 'Miljømerking Norge' });
    expect(design).toMatchObject({ rating: null, stage: 'DESIGN', cadastre_id: '1103-35-12-1-0', building_number: null });
    expect(well).toMatchObject({ cadastre_id: '0301-208-327-0-2', rating: 'PLATINUM' });
  });

  it('rejects every malformed line with its line number and reason', async () => {
    const records = await readFixture('certifications-malformed.jsonl');
    const reasons = Object.fromEntries(rejects(records).map((r) => [r.position, r.reason]));
    expect(reasons[1]).toMatch(/^not valid JSON: /);
    expect(reasons).toMatchObject({
      2: 'schema no-certification: /ordning must be equal to one of the allowed values',
      3: 'schema no-certification: /klassifisering must be equal to one of the allowed values',
      4: 'schema no-certification: /sertifiseringsdato must match format "date"',
      5: "schema no-certification: (record) must have required property 'matrikkel'",
      6: 'schema no-certification: (record) must NOT have additional properties "areal"',
      7: 'gyldigTil 2022-02-20 is before sertifiseringsdato 2023-02-20',
      8: 'klassifisering is missing for a LEED certificate',
      9: 'schema no-certification: /matrikkel/kommunenummer must match pattern "^[0-9]{4}$"',
      10: 'schema no-certification: /matrikkel/gardsnummer must be >= 1',
    });
    expect(Object.keys(reasons)).toHaveLength(10);
    expect(rejects(records)[1].raw).toContain('"DGNB"');
    // The duplicate certificate number parses twice; validation quarantines the second.
    expect(rows(records).map((r) => [r.position, r.values[0]])).toEqual([[11, 'OK-11'], [12, 'OK-11']]);
  });
});

describe('no-certification: backfill through the worker', () => {
  let pipeline: TestPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline();
  });
  afterAll(async () => {
    await pipeline?.stop();
  });
  const VALID = path.join(FIXTURES, 'certifications.jsonl');

  it('publishes every certification on its property and building', async () => {
    const summary = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-certification', input: VALID });
    expect(sourceOf(summary, 'no-certification')).toMatchObject({ outcome: 'published', rowsRead: 6, rowsStaged: 6, rowsRejected: 0, inserted: 6, deleted: 0 });
    const { rows } = await pipeline.pool.query(
      `SELECT certification_id, scheme, rating, certified_date::text, certified_area_m2, building_number, stage
       FROM certification WHERE country = 'NO' AND cadastre_id = '0301-208-327-0-0' ORDER BY certification_id`,
    );
    expect(rows).toEqual([
      { certification_id: 'BREEAM-NOR-0412', scheme: 'BREEAM-NOR', rating: 'EXCELLENT', certified_date: '2023-05-12', certified_area_m2: 12450.5, building_number: '80012345', stage: 'POST_CONSTRUCTION' },
    ]);
    const section = await pipeline.pool.query(`SELECT certification_id FROM certification WHERE cadastre_id = '0301-208-327-0-2'`);
    expect(section.rows).toEqual([{ certification_id: 'WELL-NO-77' }]);
  });

  it('changes nothing on the same file again, nor when forced to reload it', async () => {
    const before = await tableDigest(pipeline.pool, 'certification');
    const again = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-certification', input: VALID });
    expect(sourceOf(again, 'no-certification')).toMatchObject({ outcome: 'unchanged', inserted: 0, updated: 0, deleted: 0 });
    const forced = await runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-certification', input: VALID, force: true });
    expect(sourceOf(forced, 'no-certification')).toMatchObject({ outcome: 'published', rowsRead: 6, inserted: 0, updated: 0, deleted: 0 });
    expect(await tableDigest(pipeline.pool, 'certification')).toBe(before);
  });

  it('quarantines schema violations, rule breaches and a duplicate certificate number with reasons', async () => {
    const input = path.join(FIXTURES, 'certifications-malformed.jsonl');
    const summary = await withRejectCeiling('1', () => runBackfill(pipeline.client, pipeline.taskQueue, { sourceId: 'no-certification', input, force: true }));
    // Oslo-only file, forced past the row-drop check: Oslo's two certifications are replaced by the one good line;
    // other municipalities keep theirs.
    expect(sourceOf(summary, 'no-certification')).toMatchObject({ outcome: 'published', rowsRead: 12, rowsStaged: 1, rowsRejected: 11, inserted: 1, deleted: 2 });
    const reasons = await rejectsOf(pipeline.pool, summary.runId, 'no-certification');
    expect(Object.keys(reasons).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]);
    expect(reasons[12]).toBe('duplicate key certification_id=OK-11 (first at position 11)');
    const live = await pipeline.pool.query(`SELECT certification_id, rating FROM certification WHERE municipality_code = '0301'`);
    expect(live.rows).toEqual([{ certification_id: 'OK-11', rating: 'SILVER' }]);
    expect((await pipeline.pool.query(`SELECT count(*)::int AS n FROM certification`)).rows[0].n).toBe(5);
  });
});
