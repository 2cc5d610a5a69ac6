import { createReadStream } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERMIT_STAGING_COLUMNS, noPermits } from '../../../sources/no/permits.js';
import type { CellValue, ParsedRecord } from '../../../sources/source-adapter.js';

const FIXTURES = path.join(__dirname, '../../fixtures/no/permits');

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
