/**
 * The changed-night benchmark's figures and its BENCHMARKS.md section (bench/changed-night.ts):
 * per source, a first load of night 0 and the load of the next night's changed file, each
 * source alone; and the whole nightly refresh of every source on both nights. Pure functions
 * over plain data, so the summary rules are unit-tested without loading anything.
 */
import { serverUptime } from './machine.js';
import { spread } from './stats.js';

/** The issue's target: a changed night costs at most this share of a full load, per source. */
export const NIGHT_TARGET_RATIO = 0.15;
/** The section's markers in BENCHMARKS.md (bench/report-section.ts). */
export const NIGHT_SECTION = 'changed-night';
/** The phases the activities record in source_run.durations_ms, in pipeline order. */
export const NIGHT_PHASES = ['download', 'stage', 'validate', 'publish'] as const;

/** One load of one source: what the workflow took and what the ledger recorded. */
export interface SourceLoad {
  seconds: number;
  outcome: string;
  /** Phase → seconds. */
  phases: Record<string, number>;
  rowsStaged: number;
  inserted: number;
  updated: number;
  deleted: number;
  /** The steps of a multi-step publish, as the adapter timed them (source_run.details.publishStepsMs), in seconds. */
  publishSteps?: Record<string, number>;
  /** The stage's steps (source_run.details.stageStepsMs: the published hashes' read, the hash pass, the comparison, the parse), in seconds. */
  stageSteps?: Record<string, number>;
}

export interface SourceNight {
  sourceId: string;
  country: string;
  /** One per repetition. */
  firstLoads: SourceLoad[];
  nights: SourceLoad[];
}

export interface RefreshNight {
  /** Whole nightly refresh of every source, start request to result, one per repetition. */
  firstSeconds: number[];
  nightSeconds: number[];
  /** The derived datasets' own run inside each refresh (its ledger duration), one per repetition; absent in older runs. */
  firstDeriveSeconds?: number[];
  nightDeriveSeconds?: number[];
  /** Per source, ledger seconds (started → finished) inside the night's refresh, one per repetition. */
  nightSources: Record<string, number[]>;
}

export interface NightBenchRun {
  startedAt: string;
  finishedAt: string;
  commit: string;
  uncommitted: string[];
  build: string;
  /** `postgresSettings`: the server's settings that bear on loading, as it ran them (bench/machine.ts); absent in older runs. */
  machine: { cpuModel: string; cores: number; memoryGiB: number; postgres: string; postgresSettings?: Record<string, string>; serverUpSeconds?: number };
  /** The report's section the run is written to: NIGHT_SECTION, or another (`--section`, e.g. a run at the load-host settings). Absent in older runs. */
  section?: string;
  sample: { sizeLabel: string; scale: number; seed: string; night: number; rows0: Record<string, number>; rows1: Record<string, number> };
  runs: number;
  /** /proc/loadavg before and after, and the 1-minute figure sampled every 5 s. */
  loadAverage: { before: string; after: string; median: number; max: number };
  sources: SourceNight[];
  refresh: RefreshNight | null;
  /** no-business's night from the updates feed: the units the feed listed (per repetition, the same). Absent in older runs. */
  businessFeed?: { new: number; changed: number; deleted: number };
  /** The sources asked for (`--source`, with those they read), when not every source was measured. */
  only?: string[];
}

export interface SourceSummary {
  sourceId: string;
  country: string;
  firstSeconds: number;
  nightSeconds: number;
  /** nightSeconds / firstSeconds. */
  ratio: number;
  met: boolean;
  /** The night's median seconds per phase. */
  nightPhases: Record<string, number>;
  firstPhases: Record<string, number>;
  nightOutcome: string;
  /** Rows the night's publish wrote (first repetition's ledger). */
  changes: { inserted: number; updated: number; deleted: number };
  rowsStaged: number;
}

const median = (values: number[]) => (values.length ? spread(values).median : 0);

function medianPhases(loads: SourceLoad[]): Record<string, number> {
  const names = new Set(loads.flatMap((load) => Object.keys(load.phases)));
  return Object.fromEntries([...names].map((name) => [name, median(loads.map((load) => load.phases[name] ?? 0))]));
}

export function summarizeSource(source: SourceNight): SourceSummary {
  const firstSeconds = median(source.firstLoads.map((load) => load.seconds));
  const nightSeconds = median(source.nights.map((load) => load.seconds));
  const ratio = firstSeconds > 0 ? nightSeconds / firstSeconds : 0;
  const night = source.nights[0];
  return {
    sourceId: source.sourceId,
    country: source.country,
    firstSeconds,
    nightSeconds,
    ratio,
    met: ratio <= NIGHT_TARGET_RATIO,
    nightPhases: medianPhases(source.nights),
    firstPhases: medianPhases(source.firstLoads),
    nightOutcome: night?.outcome ?? 'not run',
    changes: { inserted: night?.inserted ?? 0, updated: night?.updated ?? 0, deleted: night?.deleted ?? 0 },
    rowsStaged: night?.rowsStaged ?? 0,
  };
}

/** The phase a night spends most of its time in. */
export function dominantPhase(phases: Record<string, number>): string {
  let best = '', seconds = -1;
  for (const phase of NIGHT_PHASES) {
    if ((phases[phase] ?? 0) > seconds) {
      best = phase;
      seconds = phases[phase] ?? 0;
    }
  }
  return best;
}

const s = (seconds: number) => (seconds >= 100 ? seconds.toFixed(0) : seconds.toFixed(1));
const pct = (ratio: number) => `${(ratio * 100).toFixed(0)} %`;
const int = (n: number) => n.toLocaleString('en');

/** The server's settings as the run read them; an older run recorded none (it ran at the installed settings). */
function serverSettings(settings: Record<string, string> | undefined): string {
  if (!settings) return ' at its installed settings';
  return ` with ${Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(', ')}`;
}

/** The server's uptime when the run began, where recorded: a run just after a restart starts on a cold pool. */
function upBefore(seconds: number | undefined): string {
  return seconds === undefined ? '' : `, the server ${serverUptime(seconds)} when the run began`;
}

export function renderNightSection(run: NightBenchRun): string {
  const summaries = run.sources.map(summarizeSource);
  const met = summaries.filter((summary) => summary.met).length;
  const lines: string[] = [];
  const section = run.section ?? NIGHT_SECTION;
  lines.push(`<!-- ${section}:start -->`);
  lines.push(`## The nightly that really happens: a changed night against a first load${section === NIGHT_SECTION ? '' : ` (${section}: the server settings under Machine)`}`);
  lines.push('');
  const flags = [
    ...(run.sample.scale === 0.05 ? [] : [`--scale ${run.sample.scale}`]),
    ...(run.runs === 3 ? [] : [`--runs ${run.runs}`]),
    ...(section === NIGHT_SECTION ? [] : [`--section ${section}`]),
    ...(run.refresh === null ? ['--skip-refresh'] : run.refresh.firstSeconds.length === run.runs ? [] : [`--refresh-runs ${run.refresh.firstSeconds.length}`]),
  ];
  lines.push(
    `Written by \`npm run bench -- --changed-night${flags.map((flag) => ` ${flag}`).join('')}\` (bench/changed-night.ts) on ${run.finishedAt.slice(0, 10)}, ` +
      `commit ${run.commit}${run.uncommitted.length ? ` + uncommitted ${run.uncommitted.join(', ')}` : ''}, build ${run.build}. ` +
      `Sample: the national profile at ${run.sample.scale} × national size (seed \`${run.sample.seed}\`), night 0 and night ${run.sample.night} ` +
      `(\`generateSample({ night: ${run.sample.night} })\`: about 2 % of Norwegian teiger and Swedish properties changed, removed or replaced, every register written from them following; ` +
      'the registers written per municipality are the same file both nights, sample/night.ts).',
  );
  lines.push('');
  lines.push(
    `Machine: ${run.machine.cpuModel}, ${run.machine.cores} cores, ${Math.round(run.machine.memoryGiB)} GiB, PostgreSQL ${run.machine.postgres}${serverSettings(run.machine.postgresSettings)}${upBefore(run.machine.serverUpSeconds)}. ` +
      `**Load average** before ${run.loadAverage.before}, after ${run.loadAverage.after}; 1-minute figure during the run median ${run.loadAverage.median.toFixed(1)}, max ${run.loadAverage.max.toFixed(1)}. ` +
      (run.loadAverage.median > run.machine.cores
        ? `The machine was shared with other work while this ran: on ${run.machine.cores} cores a load above ${run.machine.cores} means the figures include waiting for the CPU, `
        : `The machine was quiet (median load within its ${run.machine.cores} cores; the benchmark's own worker, PostgreSQL and Temporal server make up most of it), `) +
      'and the first load and the night of a source ran minutes apart under possibly different load.',
  );
  lines.push('');
  lines.push(
    `Each source alone, one after another in registry order, into a fresh database: the first load is a forced backfill of the night-0 file, the night a backfill of the night-${run.sample.night} file ` +
      `as a nightly runs it (not forced: an unchanged file is found unchanged). ${run.runs === 1 ? 'One repetition (the time did not allow three).' : `Median of ${run.runs} repetitions.`} ` +
      `Seconds from the workflow's start request to its result; phases from the run ledger (durations_ms). Target: the night at most ${pct(NIGHT_TARGET_RATIO)} of the first load, per source.` +
      (run.businessFeed
        ? ` no-business's night reads Brønnøysund's updates feed, as the nightly does (its default input): a local stand-in of the API (sample/no/brreg-server.ts) lists the units the night-${run.sample.night} download has new ` +
          `(${int(run.businessFeed.new)}), changed (${int(run.businessFeed.changed)}) or no longer (${int(run.businessFeed.deleted)}) against night 0's and answers their lookups (sample/no/business-feed.ts); its download phase is the feed's fetch.`
        : ''),
  );
  lines.push('');
  lines.push('| source | first load s | changed night s | night / first | ≤ 15 % | night: download / stage / validate / publish s | night spends most in | rows staged | inserted / updated / deleted |');
  lines.push('|---|---:|---:|---:|:---:|---|---|---:|---|');
  for (const summary of summaries) {
    const phases = NIGHT_PHASES.map((phase) => s(summary.nightPhases[phase] ?? 0)).join(' / ');
    const unchanged = summary.nightOutcome === 'unchanged';
    lines.push(
      `| ${summary.sourceId} | ${s(summary.firstSeconds)} | ${s(summary.nightSeconds)} | ${pct(summary.ratio)} | ${summary.met ? 'met' : '**not met**'} | ${phases} | ` +
        `${unchanged ? 'unchanged file: download (hash) only' : dominantPhase(summary.nightPhases)} | ${int(summary.rowsStaged)} | ` +
        `${unchanged ? '–' : `${int(summary.changes.inserted)} / ${int(summary.changes.updated)} / ${int(summary.changes.deleted)}`} |`,
    );
  }
  const firstTotal = summaries.reduce((sum, summary) => sum + summary.firstSeconds, 0);
  const nightTotal = summaries.reduce((sum, summary) => sum + summary.nightSeconds, 0);
  lines.push(`| **${run.only ? 'these sources' : 'every source'}, one after another** | ${s(firstTotal)} | ${s(nightTotal)} | ${pct(firstTotal > 0 ? nightTotal / firstTotal : 0)} | ${nightTotal <= NIGHT_TARGET_RATIO * firstTotal ? 'met' : '**not met**'} | | | | |`);
  lines.push('');
  lines.push(`Target met by ${met} of ${summaries.length} sources.`);
  const stepLists: Array<[string, (load: SourceLoad) => Record<string, number> | undefined]> = [
    ['Stage steps of the night, as the stage times them (first repetition, seconds; `published_hashes` reads what the spool compares with, `hash_pass` reads and hashes the whole file, `describes_live` waits for the counts that run beside it, `compare` finds the changed records in PostgreSQL, `parse` parses and copies them):', (load) => load.stageSteps],
    ['Publish steps of the night, as the adapters time them (first repetition, seconds):', (load) => load.publishSteps],
  ];
  for (const [title, stepsOf] of stepLists) {
    const stepped = run.sources.filter((source) => source.nights[0] && Object.keys(stepsOf(source.nights[0]) ?? {}).length);
    if (!stepped.length) continue;
    lines.push('');
    lines.push(title);
    lines.push('');
    for (const source of stepped) {
      const steps = Object.entries(stepsOf(source.nights[0])!).sort((a, b) => b[1] - a[1]);
      lines.push(`- ${source.sourceId}: ${steps.map(([step, seconds]) => `${step} ${s(seconds)}`).join(', ')}`);
    }
  }
  if (run.refresh) {
    const first = median(run.refresh.firstSeconds), night = median(run.refresh.nightSeconds);
    lines.push('');
    lines.push(
      `**Whole nightly refresh** (\`nightlyRefresh\` of every source, as scheduled: sources side by side, then the derived datasets), a fresh database: ` +
        `night 0 (a first load) ${s(first)} s, night ${run.sample.night} ${s(night)} s: ${pct(first > 0 ? night / first : 0)} ` +
        `(${night <= NIGHT_TARGET_RATIO * first ? 'within' : '**not within**'} ${pct(NIGHT_TARGET_RATIO)}; ${run.refresh.firstSeconds.length === 1 ? 'one repetition' : `median of ${run.refresh.firstSeconds.length}`}).` +
        (run.refresh.firstDeriveSeconds?.length && run.refresh.nightDeriveSeconds?.length
          ? ` Of that, the derived datasets' run: ${s(median(run.refresh.firstDeriveSeconds))} s on night 0, ${s(median(run.refresh.nightDeriveSeconds))} s on night ${run.sample.night}.`
          : '') +
        (run.businessFeed ? ' The refresh reads every register from the sample folder (NORDPROP_INPUT_DIR), no-business its whole download, not the feed.' : ''),
    );
  }
  lines.push(`<!-- ${section}:end -->`);
  return `${lines.join('\n')}\n`;
}
