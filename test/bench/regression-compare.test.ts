import { describe, expect, it } from 'vitest';
import {
  compareRuns,
  isRegression,
  loadWarning,
  renderCheck,
  renderFailureTable,
  renderSourceTable,
  type CheckRun,
  type SourceTiming,
} from '../../bench/regression-compare.js';

/** A loaded source whose phases add up to its end-to-end time less a second of overhead. */
function loaded(sourceId: string, stage: number, validate: number, publish: number, extra: Partial<SourceTiming> = {}): SourceTiming {
  return {
    sourceId,
    country: sourceId.slice(0, 2).toUpperCase(),
    status: 'loaded',
    seconds: stage + validate + publish + 1,
    phases: { download: 0.1, stage, validate, publish },
    rowsStaged: 1000,
    loadAverage: 1.2,
    ...extra,
  };
}

function run(sources: SourceTiming[], extra: Partial<CheckRun> = {}): CheckRun {
  return {
    recordedAt: '2026-11-26T03:00:00.000Z',
    commit: 'abc1234',
    uncommitted: [],
    build: 'f00',
    machine: { cpuModel: 'test cpu', cores: 2, memoryGiB: 24, postgres: '15.8' },
    sample: { sizeLabel: 'national-0.05', profile: 'national', scale: 0.05, seed: 'bench', generatorVersion: 5 },
    loadAverage: { before: '0.5 0.4 0.3', after: '1.5 1.2 0.9', median: 1.3, max: 1.9 },
    wallSeconds: 600,
    loadSeconds: sources.reduce((sum, s) => sum + s.seconds, 0),
    sources,
    ogr: [],
    ...extra,
  };
}

const baseline = run([
  loaded('no-address', 3, 0.5, 2),
  loaded('se-cadastre', 8, 1, 6),
  loaded('se-address', 4, 0.4, 3),
  loaded('se-building', 10, 1, 9),
  loaded('no-area', 0.3, 0.1, 0.4),
]);

const failing = (current: CheckRun, recorded: CheckRun | undefined = baseline) =>
  compareRuns(recorded, current).failures.map((f) => [f.sourceId, f.verdict]);

describe('the regression check', () => {
  it('passes a run within twice the recorded times', () => {
    const current = run([
      loaded('no-address', 5.5, 0.9, 3.9),
      loaded('se-cadastre', 12, 1.5, 11),
      loaded('se-address', 4.2, 0.5, 3.3),
      loaded('se-building', 11, 1.2, 10),
      loaded('no-area', 0.5, 0.2, 0.7),
    ]);
    const comparison = compareRuns(baseline, current);
    expect(comparison.failures).toEqual([]);
    expect(comparison.sources.map((s) => s.verdict)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('fails the source whose publish became the correlated-subquery disaster, naming the phase', () => {
    // se-address's publish: 3 s recorded, 400 s now (nested loops off over a correlated subquery).
    const current = run([
      loaded('no-address', 3, 0.5, 2),
      loaded('se-cadastre', 8, 1, 6),
      loaded('se-address', 4, 0.4, 400),
      loaded('se-building', 10, 1, 9),
      loaded('no-area', 0.3, 0.1, 0.4),
    ]);
    expect(failing(current)).toEqual([['se-address', 'regressed']]);
    const comparison = compareRuns(baseline, current);
    const publish = comparison.failures[0].measures.find((m) => m.measure === 'publish')!;
    expect(publish).toMatchObject({ recorded: 3, now: 400, regressed: true });
    expect(publish.ratio).toBeCloseTo(133.3, 1);
    // End to end too: 8.4 s → 405.4 s.
    expect(comparison.failures[0].measures.find((m) => m.measure === 'total')!.regressed).toBe(true);
    const table = renderFailureTable(comparison);
    expect(table).toContain('| `se-address` | publish | 3.00 | 400 | ×133.3 |');
    expect(table).toContain('| `se-address` | total | 8.40 | 405 | ×48.3 |');
    expect(table).not.toContain('se-building');
  });

  it('ignores a doubling under the absolute floor, and a slowdown just under the ratio', () => {
    // no-area: every phase more than doubled, but by under 2 s. se-building: 1.9×, by 9 s.
    const current = run([
      loaded('no-address', 3, 0.5, 2),
      loaded('se-cadastre', 8, 1, 6),
      loaded('se-address', 4, 0.4, 3),
      loaded('se-building', 19, 1.9, 17),
      loaded('no-area', 1.0, 0.3, 1.2),
    ]);
    expect(failing(current)).toEqual([]);
  });

  it('uses both thresholds as given', () => {
    expect(isRegression(10, 20, { ratio: 2, floorSeconds: 2 })).toBe(false); // exactly 2× is not more than 2×
    expect(isRegression(10, 20.1, { ratio: 2, floorSeconds: 2 })).toBe(true);
    expect(isRegression(1, 2.9, { ratio: 2, floorSeconds: 2 })).toBe(false); // 2.9× but 1.9 s
    expect(isRegression(1, 3, { ratio: 2, floorSeconds: 2 })).toBe(true);
    expect(isRegression(10, 16, { ratio: 1.5, floorSeconds: 2 })).toBe(true);
    const current = run([loaded('se-cadastre', 8, 1, 10)]);
    expect(compareRuns(run([loaded('se-cadastre', 8, 1, 6)]), current, { ratio: 1.5, floorSeconds: 2 }).failures.map((f) => f.sourceId)).toEqual(['se-cadastre']);
    expect(compareRuns(run([loaded('se-cadastre', 8, 1, 6)]), current).failures).toEqual([]);
  });

  it('fails a source that failed, was stopped at its limit, or was skipped; and one recorded but not measured', () => {
    const current = run([
      { ...loaded('no-address', 3, 0.5, 2), status: 'failed', seconds: 0, note: 'ValidationFailed: 3 % rejected' },
      loaded('se-cadastre', 8, 1, 6),
      // Stopped at 120 s while publishing: the ledger has no publish duration.
      { sourceId: 'se-address', country: 'SE', status: 'stopped', seconds: 120, phases: { download: 0.1, stage: 4, validate: 0.4 }, rowsStaged: 134053, loadAverage: 1.1 },
      { sourceId: 'se-building', country: 'SE', status: 'skipped', seconds: 0, phases: {}, rowsStaged: 0, loadAverage: null, note: 'it reads se-cadastre, which did not load' },
    ]);
    expect(failing(current)).toEqual([
      ['no-address', 'failed'],
      ['se-address', 'stopped'],
      ['se-building', 'skipped'],
      ['no-area', 'missing'],
    ]);
    const table = renderFailureTable(compareRuns(baseline, current));
    expect(table).toContain('| `se-address` | publish (stopped in it) | 8.40 | > 120 | > ×14.3 |');
    expect(table).toContain('ValidationFailed: 3 % rejected');
    expect(table).toContain('| `no-area` | total | 1.80 | – | – | recorded, but not measured in this run |');
  });

  it('judges nothing against an empty record, and does not fail a new source', () => {
    const current = run([loaded('no-address', 3, 0.5, 2), loaded('no-new-register', 50, 5, 50)]);
    expect(compareRuns(undefined, current).sources.map((s) => s.verdict)).toEqual(['new', 'new']);
    expect(compareRuns(undefined, current).hasBaseline).toBe(false);
    const comparison = compareRuns(run([loaded('no-address', 3, 0.5, 2)]), current);
    expect(comparison.failures).toEqual([]);
    expect(comparison.sources.map((s) => s.verdict)).toEqual(['ok', 'new']);
  });

  it('does not count a recorded failure as a time to compare with', () => {
    const recorded = run([{ ...loaded('se-area', 1, 1, 1), status: 'failed', note: 'x' }]);
    const comparison = compareRuns(recorded, run([loaded('se-area', 10, 10, 10)]));
    expect(comparison.sources[0].verdict).toBe('new');
    expect(comparison.failures).toEqual([]);
  });

  it('names what makes two runs less comparable', () => {
    const other = run(baseline.sources, { sample: { ...baseline.sample, generatorVersion: 6 }, machine: { ...baseline.machine, cores: 8 } });
    const caveats = compareRuns(baseline, other).caveats;
    expect(caveats).toHaveLength(2);
    expect(caveats[0]).toMatch(/generator version 5.*now version 6/);
    expect(caveats[1]).toMatch(/2 cores; now test cpu, 8 cores/);
  });

  it('renders every source with its recorded time, ogr2ogr beside it, and the load average', () => {
    const current = run([loaded('no-address', 3, 0.5, 7), loaded('se-cadastre', 8, 1, 6)], {
      ogr: [{ sourceId: 'no-address', label: 'address CSV', seconds: 2, rows: 1000 }],
    });
    const comparison = compareRuns(baseline, current);
    const table = renderSourceTable(comparison, current);
    expect(table).toContain('| `no-address` | 1,000 | 11.5 (was 6.50) | 3.00 (was 3.00) | 0.50 (was 0.50) | **7.00 (was 2.00)** | ×3.50 | 2.00 (×5.8) | 1.20 | **SLOWER** |');
    expect(table).toContain('| `se-address` | – | – (was 8.40) | | | | – | | – | **MISSING** |');
    const section = renderCheck(comparison, baseline, current, { record: false });
    expect(section.startsWith('<!-- regression-check:start -->\n## Regression check')).toBe(true);
    expect(section.trimEnd().endsWith('<!-- regression-check:end -->')).toBe(true);
    expect(section).toContain('Load average (1 min) 0.5 before, 1.5 after; during the run median 1.3, max 1.9 on 2 cores');
    expect(section).toContain('4 source(s) fail the check');
  });

  it('warns when either run was measured on a busy machine', () => {
    expect(loadWarning(baseline, baseline)).toEqual([]); // median 1.3 on 2 cores
    const busy = run(baseline.sources, { loadAverage: { before: '9 8 7', after: '9 8 7', median: 8.4, max: 11 } });
    expect(loadWarning(busy, baseline)[0]).toMatch(/machine was busy.*this run's median load average was 8.4 on 2 cores/);
    expect(loadWarning(baseline, busy)[0]).toMatch(/the recorded run's was 8.4.*record the baseline on one/);
  });

  it('names the publish steps that grew when a multi-table publish regressed', () => {
    const recorded = run([loaded('se-cadastre', 8, 1, 6, { publishSteps: { parcel: 3, parcel_property: 1, property_register: 2 } })]);
    const current = run([loaded('se-cadastre', 8, 1, 20, { publishSteps: { parcel: 3.1, parcel_property: 1, property_register: 15.9 } })]);
    const table = renderFailureTable(compareRuns(recorded, current));
    expect(table).toContain('| `se-cadastre` | publish | 6.00 | 20.0 | ×3.3 | over ×2 and 2 s slower; steps: property_register 2.00 → 15.9, parcel 3.00 → 3.10, parcel_property 1.00 → 1.00 |');
  });
});
