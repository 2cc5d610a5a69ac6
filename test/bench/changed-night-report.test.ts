import { describe, expect, it } from 'vitest';
import { dominantPhase, renderNightSection, summarizeSource, type NightBenchRun, type SourceLoad } from '../../bench/changed-night-report.js';

function load(seconds: number, phases: Record<string, number>, outcome = 'published'): SourceLoad {
  return { seconds, outcome, phases, rowsStaged: 1000, inserted: 10, updated: 5, deleted: 3 };
}

function run(extra: Partial<NightBenchRun> = {}): NightBenchRun {
  return {
    startedAt: '2026-11-26T08:00:00.000Z',
    finishedAt: '2026-11-26T08:30:00.000Z',
    commit: 'abc1234',
    uncommitted: [],
    build: 'f00',
    machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 8, postgres: '15.4' },
    sample: { sizeLabel: 'national-0.05', scale: 0.05, seed: 'bench', night: 1, rows0: {}, rows1: {} },
    runs: 3,
    loadAverage: { before: '9.50 8.00 7.00', after: '10.00 9.00 8.00', median: 9.8, max: 12.1 },
    sources: [
      // Parse-bound: the night re-reads the whole file.
      { sourceId: 'no-building', country: 'NO', firstLoads: [load(40, { stage: 25 }), load(44, { stage: 27 }), load(42, { stage: 26 })], nights: [load(30, { stage: 24, publish: 3 }), load(34, { stage: 26, publish: 4 }), load(32, { stage: 25, publish: 3 })] },
      // An unchanged file: the night hashes it and stops.
      { sourceId: 'no-area', country: 'NO', firstLoads: [load(3, { stage: 1.4 })], nights: [load(0.3, { download: 0.1 }, 'unchanged')] },
      { sourceId: 'se-cadastre', country: 'SE', firstLoads: [load(20, { publish: 10 })], nights: [{ ...load(30, { publish: 25 }), publishSteps: { parcel: 2, address_property_link: 12.5 } }] },
    ],
    refresh: { firstSeconds: [300, 320, 310], nightSeconds: [200, 220, 210], nightSources: {} },
    ...extra,
  };
}

describe('the changed-night benchmark summary', () => {
  it('takes medians per source and judges the night against 15 % of the first load', () => {
    const [building, area] = run().sources.map(summarizeSource);
    expect(building).toMatchObject({ firstSeconds: 42, nightSeconds: 32, met: false });
    expect(building.ratio).toBeCloseTo(32 / 42);
    expect(building.nightPhases).toMatchObject({ stage: 25, publish: 3 });
    expect(dominantPhase(building.nightPhases)).toBe('stage');
    expect(area).toMatchObject({ firstSeconds: 3, nightSeconds: 0.3, met: true, nightOutcome: 'unchanged' });
  });

  it('writes a section with the load average, each source\'s ratio, the target met or not, and the whole refresh', () => {
    const section = renderNightSection(run());
    expect(section.startsWith('<!-- changed-night:start -->')).toBe(true);
    expect(section.trimEnd().endsWith('<!-- changed-night:end -->')).toBe(true);
    expect(section).toContain('**Load average** before 9.50 8.00 7.00, after 10.00 9.00 8.00');
    expect(section).toContain('median 9.8, max 12.1');
    expect(section).toMatch(/\| no-building \| 42\.0 \| 32\.0 \| 76 % \| \*\*not met\*\* \|/);
    expect(section).toMatch(/\| no-area \| 3\.0 \| 0\.3 \| 10 % \| met \|/);
    expect(section).toContain('Target met by 1 of 3 sources.');
    expect(section).toContain('- se-cadastre: address_property_link 12.5, parcel 2.0');
    expect(section).toContain('night 0 (a first load) 310 s, night 1 210 s: 68 %');
    expect(section).toContain('Median of 3 repetitions.');
  });

  it('totals only the sources measured when some were asked for (--source)', () => {
    expect(renderNightSection(run())).toMatch(/\| \*\*every source, one after another\*\* \|/);
    const some = renderNightSection(run({ only: ['no-building', 'no-area', 'se-cadastre'], refresh: null }));
    expect(some).toMatch(/\| \*\*these sources, one after another\*\* \|/);
    expect(some).not.toMatch(/every source/);
  });

  it('says when it ran once', () => {
    const once = renderNightSection(run({ runs: 1, refresh: null }));
    expect(once).toContain('One repetition');
    expect(once).toContain('npm run bench -- --changed-night --runs 1 --skip-refresh');
    expect(renderNightSection(run({ refresh: { firstSeconds: [300], nightSeconds: [200], nightSources: {} } }))).toContain('--changed-night --refresh-runs 1`');
    // The derived datasets' share of each refresh, when the run recorded it.
    expect(renderNightSection(run({ refresh: { firstSeconds: [300], nightSeconds: [200], firstDeriveSeconds: [40], nightDeriveSeconds: [12.5], nightSources: {} } })))
      .toContain("Of that, the derived datasets' run: 40.0 s on night 0, 12.5 s on night 1.");
  });

  it("says that no-business's night read the updates feed, and what the feed listed", () => {
    const section = renderNightSection(run({ businessFeed: { new: 120, changed: 1_450, deleted: 98 } }));
    expect(section).toContain("no-business's night reads Brønnøysund's updates feed");
    expect(section).toContain('new (120), changed (1,450) or no longer (98)');
    expect(section).toContain('no-business its whole download, not the feed');
    expect(renderNightSection(run())).not.toContain('updates feed');
  });

  it('names the server settings it ran at, and writes a section of its own for a run at other settings (--section)', () => {
    expect(renderNightSection(run())).toContain('PostgreSQL 15.4 at its installed settings.');
    const tuned = renderNightSection(run({
      section: 'changed-night-tuned',
      machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 8, postgres: '15.4', postgresSettings: { max_wal_size: '16GB', shared_buffers: '6GB' } },
    }));
    expect(tuned.startsWith('<!-- changed-night-tuned:start -->')).toBe(true);
    expect(tuned.trimEnd().endsWith('<!-- changed-night-tuned:end -->')).toBe(true);
    expect(tuned).toContain('PostgreSQL 15.4 with max_wal_size=16GB, shared_buffers=6GB.');
    expect(tuned).toContain('npm run bench -- --changed-night --section changed-night-tuned`');
  });

  it('says how long the server had been up, where the run recorded it (a cold pool just after a restart)', () => {
    const justRestarted = renderNightSection(run({ machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 8, postgres: '15.4', serverUpSeconds: 95 } }));
    expect(justRestarted).toContain('PostgreSQL 15.4 at its installed settings, the server up 2 min when the run began.');
    const longUp = renderNightSection(run({ machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 8, postgres: '15.4', serverUpSeconds: 3 * 86400 + 7200 } }));
    expect(longUp).toContain('the server up 3.1 days when the run began.');
    expect(renderNightSection(run())).not.toContain('when the run began');
  });
});
