/**
 * The regression check's judgement (`npm run bench:check`, bench/regression-check.ts): one
 * run's per-source load times against the run recorded in bench/regression-baseline.json at
 * the same sample size. Pure functions over plain data, so the rules are unit-tested
 * (test/bench/regression-compare.test.ts) without loading anything.
 *
 * A source fails when its end-to-end time or one of its phases (stage, validate, publish, from
 * the ledger's durations_ms) took more than `ratio` × the recorded time AND at least
 * `floorSeconds` more: a 0.4 s publish that becomes 1.1 s is noise on a shared two-core
 * machine, a 4 s publish that becomes 10 s is not. A source that did not load (failed, stopped
 * at its time limit, skipped because a source it reads did not load) fails too, and so does a
 * recorded source the run did not measure. A source with no recorded time is new: shown, not
 * judged.
 */

/** The sample size checked by default: small enough for about ten minutes on two cores. */
export const DEFAULT_SCALE = 0.05;
/** The check's section in BENCHMARKS.md (bench/report-section.ts). */
export const SECTION = 'regression-check';

/** The phases compared one by one, as the activities name them in source_run.durations_ms. */
export const COMPARED_PHASES = ['stage', 'validate', 'publish'] as const;
export type ComparedPhase = (typeof COMPARED_PHASES)[number];
/** `total`: the workflow's start request to its result (download, the four activities, the ledger). */
export type Measure = 'total' | ComparedPhase;

export interface SourceTiming {
  sourceId: string;
  country: string;
  /**
   * `loaded`: published; `failed`: the run ended in an error; `stopped`: still running at its
   * time limit, terminated (its `seconds` is that limit, a lower bound); `skipped`: not started
   * because a source it reads did not load, or it has no sample file.
   */
  status: 'loaded' | 'failed' | 'stopped' | 'skipped';
  /** End to end, seconds; for `stopped`, the limit it was stopped at. */
  seconds: number;
  /** Seconds per phase the ledger recorded (a stopped run lacks the phase it was stopped in). */
  phases: Partial<Record<string, number>>;
  rowsStaged: number;
  /** The 1-minute load average when the source's load ended. */
  loadAverage: number | null;
  /** Why it failed, stopped or was skipped. */
  note?: string;
  /** Seconds per step of a multi-table publish, as the adapter timed them (the ledger's publishStepsMs). */
  publishSteps?: Record<string, number>;
}

export interface OgrTiming {
  /** The nordprop source loading the same file. */
  sourceId: string;
  label: string;
  seconds: number;
  rows: number;
}

/** One run of the check: what bench/regression-baseline.json records per sample size. */
export interface CheckRun {
  recordedAt: string;
  commit: string;
  /** Pipeline files with uncommitted changes when the run started. */
  uncommitted: string[];
  /** Fingerprint of the compiled pipeline the worker ran (bench/build-stamp.ts). */
  build: string;
  machine: { cpuModel: string; cores: number; memoryGiB: number; postgres: string };
  sample: { sizeLabel: string; profile: string; scale: number; seed: string; generatorVersion: number };
  /** 1-minute load average: before, after, and the median and max of samples every 5 s. */
  loadAverage: { before: string; after: string; median: number; max: number };
  /** The whole command, sample reuse and database setup included. */
  wallSeconds: number;
  /** Sum of the sources' end-to-end times. */
  loadSeconds: number;
  sources: SourceTiming[];
  ogr: OgrTiming[];
}

export interface BaselineFile {
  /** What the file is, for a reader who opens it. */
  about: string;
  /** Per sample size label (`national-0.05`): the last run recorded with --record. */
  runs: Record<string, CheckRun>;
}

export interface Thresholds {
  /** Fail above this multiple of the recorded time… */
  ratio: number;
  /** …when the difference is at least this many seconds. */
  floorSeconds: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { ratio: 2, floorSeconds: 2 };

export interface MeasureComparison {
  measure: Measure;
  recorded: number | null;
  now: number | null;
  /** now / recorded; null when either is missing or the recorded time is 0. */
  ratio: number | null;
  regressed: boolean;
}

export type Verdict = 'ok' | 'regressed' | 'new' | 'failed' | 'stopped' | 'skipped' | 'missing';

export interface SourceComparison {
  sourceId: string;
  verdict: Verdict;
  current: SourceTiming | null;
  recorded: SourceTiming | null;
  measures: MeasureComparison[];
  /** Why the source fails, one line, or null. */
  reason: string | null;
}

export interface Comparison {
  thresholds: Thresholds;
  /** False when there was nothing recorded at this size: every source is `new`. */
  hasBaseline: boolean;
  sources: SourceComparison[];
  /** The sources that fail the check. */
  failures: SourceComparison[];
  /** Notes about what makes the two runs less comparable (another sample, another machine). */
  caveats: string[];
}

const FAILING: ReadonlySet<Verdict> = new Set(['regressed', 'failed', 'stopped', 'skipped', 'missing']);

function measureValue(timing: SourceTiming, measure: Measure): number | null {
  if (measure === 'total') return timing.seconds;
  const value = timing.phases[measure];
  return typeof value === 'number' ? value : null;
}

/** Whether `now` is a regression from `recorded` under the thresholds. */
export function isRegression(recorded: number, now: number, thresholds: Thresholds): boolean {
  return now > thresholds.ratio * recorded && now - recorded >= thresholds.floorSeconds;
}

function compareMeasures(recorded: SourceTiming | null, current: SourceTiming, thresholds: Thresholds): MeasureComparison[] {
  return (['total', ...COMPARED_PHASES] as Measure[]).map((measure) => {
    const then = recorded?.status === 'loaded' ? measureValue(recorded, measure) : null;
    const now = measureValue(current, measure);
    const ratio = then !== null && now !== null && then > 0 ? now / then : null;
    // A stopped run's total is a lower bound: slower than that is still a regression.
    const regressed = then !== null && now !== null && isRegression(then, now, thresholds);
    return { measure, recorded: then, now, ratio, regressed };
  });
}

const fmt = (seconds: number) => (seconds >= 100 ? seconds.toFixed(0) : seconds >= 10 ? seconds.toFixed(1) : seconds.toFixed(2));

export function compareRuns(recorded: CheckRun | undefined, current: CheckRun, thresholds: Thresholds = DEFAULT_THRESHOLDS): Comparison {
  const before = new Map((recorded?.sources ?? []).map((s) => [s.sourceId, s]));
  const sources: SourceComparison[] = [];
  for (const now of current.sources) {
    const then = before.get(now.sourceId) ?? null;
    before.delete(now.sourceId);
    const measures = compareMeasures(then, now, thresholds);
    let verdict: Verdict;
    let reason: string | null = null;
    if (now.status !== 'loaded') {
      verdict = now.status;
      reason = now.status === 'stopped'
        ? `still running after ${fmt(now.seconds)} s${then?.status === 'loaded' ? ` (recorded ${fmt(then.seconds)} s)` : ''}: stopped${now.note ? `; ${now.note}` : ''}`
        : `${now.status}${now.note ? `: ${now.note}` : ''}`;
    } else if (!then || then.status !== 'loaded') {
      verdict = 'new';
    } else {
      const worse = measures.filter((m) => m.regressed);
      verdict = worse.length ? 'regressed' : 'ok';
      if (worse.length) reason = worse.map((m) => `${m.measure} ${fmt(m.recorded!)} → ${fmt(m.now!)} s (×${m.ratio!.toFixed(1)})`).join(', ');
    }
    sources.push({ sourceId: now.sourceId, verdict, current: now, recorded: then, measures, reason });
  }
  // Recorded, but this run did not measure it at all (a source dropped from the registry or the sample).
  for (const then of before.values()) {
    if (then.status !== 'loaded') continue;
    sources.push({ sourceId: then.sourceId, verdict: 'missing', current: null, recorded: then, measures: [], reason: 'recorded, but not measured in this run' });
  }
  return {
    thresholds,
    hasBaseline: recorded !== undefined,
    sources,
    failures: sources.filter((s) => FAILING.has(s.verdict)),
    caveats: recorded ? caveats(recorded, current) : [],
  };
}

function caveats(recorded: CheckRun, current: CheckRun): string[] {
  const notes: string[] = [];
  const a = recorded.sample;
  const b = current.sample;
  if (a.generatorVersion !== b.generatorVersion || a.seed !== b.seed || a.scale !== b.scale || a.profile !== b.profile) {
    notes.push(`the recorded run read another sample (generator version ${a.generatorVersion}, seed ${a.seed}, ${a.profile} ${a.scale}; now version ${b.generatorVersion}, seed ${b.seed}, ${b.profile} ${b.scale})`);
  }
  if (recorded.machine.cpuModel !== current.machine.cpuModel || recorded.machine.cores !== current.machine.cores) {
    notes.push(`the recorded run was on another machine (${recorded.machine.cpuModel}, ${recorded.machine.cores} cores; now ${current.machine.cpuModel}, ${current.machine.cores} cores)`);
  }
  return notes;
}

/** A recorded/now cell: `12.3 (was 11.8)`. */
function cell(m: MeasureComparison | undefined, stopped: boolean): string {
  if (!m || m.now === null) return m?.recorded != null ? `– (was ${fmt(m.recorded)})` : '–';
  const now = `${stopped && m.measure === 'total' ? '> ' : ''}${fmt(m.now)}`;
  const text = m.recorded === null ? now : `${now} (was ${fmt(m.recorded)})`;
  return m.regressed ? `**${text}**` : text;
}

const VERDICT_TEXT: Record<Verdict, string> = {
  ok: 'ok',
  regressed: '**SLOWER**',
  new: 'new',
  failed: '**FAILED**',
  stopped: '**STOPPED**',
  skipped: '**SKIPPED**',
  missing: '**MISSING**',
};

/**
 * Every source: its times now and as recorded, the worst ratio, ogr2ogr on the same file where
 * there is one, and the load average when it finished.
 */
export function renderSourceTable(comparison: Comparison, current: CheckRun): string {
  const ogr = new Map(current.ogr.map((o) => [o.sourceId, o]));
  const lines = [
    '| source | rows staged | end to end s | stage s | validate s | publish s | worst ratio | ogr2ogr s (nordprop ÷ ogr2ogr) | load avg 1m | verdict |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const s of comparison.sources) {
    const by = (measure: Measure) => s.measures.find((m) => m.measure === measure);
    const ratios = s.measures.map((m) => m.ratio).filter((r): r is number => r !== null);
    const worst = ratios.length ? `×${Math.max(...ratios).toFixed(2)}` : '–';
    const o = ogr.get(s.sourceId);
    const ogrCell = o && s.current?.status === 'loaded' ? `${fmt(o.seconds)} (×${(s.current.seconds / o.seconds).toFixed(1)})` : o ? fmt(o.seconds) : '';
    const stopped = s.verdict === 'stopped';
    const rows = s.current ? s.current.rowsStaged.toLocaleString('en') : '–';
    const load = s.current?.loadAverage != null ? s.current.loadAverage.toFixed(2) : '–';
    if (!s.current) {
      lines.push(`| \`${s.sourceId}\` | – | – (was ${fmt(s.recorded!.seconds)}) | | | | – | | – | ${VERDICT_TEXT[s.verdict]} |`);
      continue;
    }
    lines.push(`| \`${s.sourceId}\` | ${rows} | ${cell(by('total'), stopped)} | ${cell(by('stage'), false)} | ${cell(by('validate'), false)} | ${cell(by('publish'), false)} | ${worst} | ${ogrCell} | ${load} | ${VERDICT_TEXT[s.verdict]} |`);
  }
  return lines.join('\n');
}

/** The failing sources, one line per source and measure: what a reader of a red run needs. */
export function renderFailureTable(comparison: Comparison): string {
  const lines = ['| source | phase | recorded s | now s | ratio | why |', '|---|---|---:|---:|---:|---|'];
  for (const s of comparison.failures) {
    const worse = s.measures.filter((m) => m.regressed);
    if (s.verdict === 'regressed') {
      for (const m of worse) {
        const steps = m.measure === 'publish' ? publishStepsText(s.recorded!, s.current!) : '';
        lines.push(`| \`${s.sourceId}\` | ${m.measure} | ${fmt(m.recorded!)} | ${fmt(m.now!)} | ×${m.ratio!.toFixed(1)} | over ×${comparison.thresholds.ratio} and ${comparison.thresholds.floorSeconds} s slower${steps} |`);
      }
      continue;
    }
    const total = s.measures.find((m) => m.measure === 'total');
    const recorded = s.recorded?.status === 'loaded' ? fmt(s.recorded.seconds) : '–';
    const now = s.current ? `${s.verdict === 'stopped' ? '> ' : ''}${fmt(s.current.seconds)}` : '–';
    const ratio = total?.ratio != null ? `${s.verdict === 'stopped' ? '> ' : ''}×${total.ratio.toFixed(1)}` : '–';
    const phase = s.verdict === 'stopped' ? stoppedPhase(s.current!) : 'total';
    lines.push(`| \`${s.sourceId}\` | ${phase} | ${recorded} | ${now} | ${ratio} | ${(s.reason ?? s.verdict).replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  }
  return lines.join('\n');
}

/** A multi-table publish's steps now and as recorded, largest change first: which statement grew. */
export function publishStepsText(recorded: SourceTiming, current: SourceTiming): string {
  const now = current.publishSteps ?? {};
  const then = recorded.publishSteps ?? {};
  const steps = Object.keys(now).sort((a, b) => (now[b] - (then[b] ?? 0)) - (now[a] - (then[a] ?? 0)));
  if (!steps.length) return '';
  return `; steps: ${steps.map((step) => `${step} ${step in then ? `${fmt(then[step])} → ` : ''}${fmt(now[step])}`).join(', ')}`;
}

/** The phase a stopped run was in: the first one the ledger has no duration for. */
export function stoppedPhase(timing: SourceTiming): string {
  for (const phase of ['download', ...COMPARED_PHASES]) if (typeof timing.phases[phase] !== 'number') return `${phase} (stopped in it)`;
  return 'after publish (stopped)';
}

export function renderOgrDrift(recorded: CheckRun | undefined, current: CheckRun): string[] {
  if (!recorded) return [];
  const before = new Map(recorded.ogr.map((o) => [o.sourceId, o]));
  const parts = current.ogr.flatMap((o) => {
    const then = before.get(o.sourceId);
    return then ? [`${o.label} ${o.seconds.toFixed(1)} s (recorded ${then.seconds.toFixed(1)} s, ×${(o.seconds / then.seconds).toFixed(2)})`] : [];
  });
  return parts.length ? [`ogr2ogr on the same files, a yardstick of the machine itself (not judged): ${parts.join('; ')}.`] : [];
}

export function fmtWall(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * Above this 1-minute load average per core (median through the run), other work shared the
 * machine: the check alone keeps two cores near 1–2.
 */
export const BUSY_LOAD_PER_CORE = 1.25;

/** A warning when either run was measured on a busy machine: its times say as much about the machine as the code. */
export function loadWarning(current: CheckRun, recorded: CheckRun | undefined): string[] {
  const busy = (run: CheckRun) => run.loadAverage.median > BUSY_LOAD_PER_CORE * run.machine.cores;
  const parts = [
    ...(busy(current) ? [`this run's median load average was ${current.loadAverage.median.toFixed(1)} on ${current.machine.cores} cores`] : []),
    ...(recorded && busy(recorded) ? [`the recorded run's was ${recorded.loadAverage.median.toFixed(1)} on ${recorded.machine.cores} cores`] : []),
  ];
  if (!parts.length) return [];
  return [`**Warning: the machine was busy** (${parts.join('; ')}): other work competed for the CPU, so a slower time may be the machine, not the code. Run the check again on a quiet machine before believing a failure${recorded && busy(recorded) ? ', and record the baseline on one' : ''}.`];
}

/** The command line that made a run. */
export function checkCommand(scale: number, record: boolean): string {
  const flags = [...(scale === DEFAULT_SCALE ? [] : ['--scale', String(scale)]), ...(record ? ['--record'] : [])];
  return `npm run bench:check${flags.length ? ` -- ${flags.join(' ')}` : ''}`;
}

function uncommittedText(files: string[]): string {
  if (!files.length) return '';
  const named = files.slice(0, 4).map((f) => `\`${f}\``).join(', ');
  return ` with uncommitted changes to ${files.length} pipeline file(s) (${named}${files.length > 4 ? `, … ${files.length - 4} more` : ''})`;
}

/** The report: what was measured, on what, the load average, the table; the failures when there are any. */
export function renderCheck(comparison: Comparison, recorded: CheckRun | undefined, current: CheckRun, options: { record: boolean }): string {
  const t = comparison.thresholds;
  const lines = [
    `<!-- ${SECTION}:start -->`,
    `## Regression check: every source at ${current.sample.scale} × national size (\`npm run bench:check\`)`,
    '',
    `Made by \`${checkCommand(current.sample.scale, options.record)}\` on ${current.recordedAt.slice(0, 16).replace('T', ' ')} UTC, commit \`${current.commit}\`${uncommittedText(current.uncommitted)}, build ${current.build}; ${current.machine.cores} cores (${current.machine.cpuModel}), PostgreSQL ${current.machine.postgres}.`,
    `Load average (1 min) ${current.loadAverage.before.split(' ')[0]} before, ${current.loadAverage.after.split(' ')[0]} after; during the run median ${current.loadAverage.median.toFixed(1)}, max ${current.loadAverage.max.toFixed(1)} on ${current.machine.cores} cores (the check alone keeps it near 1–2; more means other work shared the machine and the times are not comparable).`,
    `Each source backfilled once from the sample (generator version ${current.sample.generatorVersion}, seed ${current.sample.seed}) into a fresh database in registry order, every load a first load; end to end is the workflow's start request to its result, the phases are the ledger's durations_ms. Whole check ${fmtWall(current.wallSeconds)}, the loads ${fmtWall(current.loadSeconds)}.`,
    recorded
      ? `Compared with the run recorded on ${recorded.recordedAt.slice(0, 16).replace('T', ' ')} UTC (commit \`${recorded.commit}\`, load average median ${recorded.loadAverage.median.toFixed(1)}): a source fails when its end-to-end time or a phase took more than ${t.ratio}× the recorded time and at least ${t.floorSeconds} s more, or when it did not load.`
      : `Nothing was recorded at this size before this run: every source is new.`,
    ...comparison.caveats.map((c) => `Caveat: ${c}.`),
    ...loadWarning(current, recorded),
    ...renderOgrDrift(recorded, current),
    '',
    renderSourceTable(comparison, current),
  ];
  if (comparison.failures.length) lines.push('', `**${comparison.failures.length} source(s) fail the check:**`, '', renderFailureTable(comparison));
  lines.push(`<!-- ${SECTION}:end -->`, '');
  return lines.join('\n');
}
