/**
 * `npm run bench -- --changed-night`: what a night that really changes costs against a first
 * load, per source and for the whole refresh (issue 19). Registers change every night; the
 * other benchmarks time a first load and a night on unchanged files.
 *
 * The national-profile sample at a small scale (default 0.05, the size `npm run bench:check`
 * loads) is generated twice: night 0 (shared with bench:check) and night 1 (about 2 % of
 * teiger and properties changed, removed or replaced: sample/night.ts). Each repetition, into
 * a fresh database:
 * 1. every source alone, in registry order: a forced backfill of its night-0 file (a first
 *    load); then every source alone again with its night-1 file, not forced, as a night runs it;
 * 2. (unless --skip-refresh) a fresh database again, the whole nightlyRefresh with the worker
 *    reading night 0, then with it reading night 1.
 * It writes the section `changed-night` of the report (bench/changed-night-report.ts), with the
 * machine's load average, and the raw figures to .data/bench/changed-night-<size>.json.
 *
 *   npm run bench -- --changed-night [--scale S] [--runs N] [--refresh-runs N] [--night N] [--out FILE] [--section NAME] [--skip-refresh]
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../lib/config.js';
import { startTemporalServer, type TemporalServer } from '../lib/temporal/dev-server.js';
import { SOURCES } from '../sources/registry.js';
import { BrregServer } from '../sample/no/brreg-server.js';
import { feedBetween } from '../sample/no/business-feed.js';
import { sourceState } from './build-stamp.js';
import { NIGHT_SECTION, renderNightSection, type NightBenchRun, type RefreshNight, type SourceLoad, type SourceNight } from './changed-night-report.js';
import { dropBenchDatabase, recreateDatabase, settle, type LedgerEntry } from './database.js';
import { monitorLoad } from './load-monitor.js';
import { loadAverage, machineInfo } from './machine.js';
import { numberOption, parseOptions } from './options.js';
import { connectPipelineClient, runBackfill, runNightly, runSourceNight, type PipelineClient, type PipelineRun } from './pipeline-run.js';
import { DEFAULT_SCALE } from './regression-compare.js';
import { replaceSection } from './report-section.js';
import { ensureSample, type BenchSample } from './sample-data.js';
import { snapshotBuild } from './snapshot.js';
import { spread } from './stats.js';
import { startWorker, type WorkerEnv, type WorkerProcess } from './worker-process.js';

const DATABASE = 'nordprop_bench_night';
const TASK_QUEUE = 'bench-night';
const WORK_DIR = path.join(PROJECT_ROOT, '.data/bench-night');

const USAGE = `usage: npm run bench -- --changed-night [--scale S] [--runs N] [--refresh-runs N] [--night N] [--out FILE] [--section NAME] [--skip-refresh] [--source ID ...]
  --scale S       national profile at S × national size (default ${DEFAULT_SCALE}, the size of npm run bench:check)
  --runs N        repetitions, medians reported (default 3)
  --refresh-runs N  repetitions of the whole refresh (default: as --runs; fewer when time is short)
  --night N       the changed night measured after night 0 (default 1)
  --out FILE      the report whose section ${NIGHT_SECTION} is written (default BENCHMARKS.md)
  --section NAME  write section NAME instead (e.g. changed-night-tuned for a run at the load-host
                  settings of README, set on the server beforehand: the benchmark tunes nothing)
  --skip-refresh  only the per-source loads, not the whole nightly refresh
  --source ID     only this source (repeatable), and the sources it reads (dependsOn), loaded first;
                  no whole refresh; the report goes to .data/bench/ unless --out names a file
  --keep-database leave the last store (database ${DATABASE}: the whole refresh's night, or the last
                  source's) in place at the end, to look into its run ledger and statements`;

const log = (line: string) => process.stderr.write(`[bench:night ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface NightOptions {
  scale: number;
  runs: number;
  refreshRuns: number;
  night: number;
  out: string;
  /** The report's section written (`--section`): another than NIGHT_SECTION keeps a run at other server settings beside it. */
  section: string;
  skipRefresh: boolean;
  keepDatabase: boolean;
  /** `--source`: the sources to measure, in registry order, with those they read; undefined for every source. */
  only?: string[];
}

/** The named sources and, before them, every source they read (dependsOn), in registry order. */
function withDependencies(ids: string[]): string[] {
  const wanted = new Set<string>();
  const add = (id: string) => {
    const source = SOURCES.find((candidate) => candidate.id === id);
    if (!source) throw new Error(`--source: no source "${id}" (sources: ${SOURCES.map((candidate) => candidate.id).join(', ')})\n${USAGE}`);
    if (wanted.has(id)) return;
    wanted.add(id);
    for (const dependency of source.dependsOn ?? []) add(dependency);
  };
  ids.forEach(add);
  return SOURCES.filter((source) => wanted.has(source.id)).map((source) => source.id);
}

/** A report section's name goes into HTML comments and a file name: letters, digits and dashes. */
function sectionName(text: string): string {
  if (!/^[a-z0-9-]+$/.test(text)) throw new Error(`--section must be letters, digits and dashes, got "${text}"\n${USAGE}`);
  return text;
}

function parseNightOptions(argv: string[]): NightOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string' },
      runs: { type: 'string' },
      'refresh-runs': { type: 'string' },
      night: { type: 'string' },
      out: { type: 'string' },
      section: { type: 'string', default: NIGHT_SECTION },
      'skip-refresh': { type: 'boolean', default: false },
      'keep-database': { type: 'boolean', default: false },
      source: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, text: string | undefined, fallback: number, ok: (v: number) => boolean) => numberOption(name, text, fallback, ok, USAGE);
  const runs = number('runs', values.runs, 3, (v) => Number.isInteger(v) && v >= 1);
  const scale = number('scale', values.scale, DEFAULT_SCALE, (v) => v > 0 && v <= 1);
  const only = values.source?.length ? withDependencies(values.source) : undefined;
  // A few sources' figures do not replace the section of every source in BENCHMARKS.md.
  const defaultOut = only ? path.join(PROJECT_ROOT, `.data/bench/changed-night-${scale}-${only.join('-')}.md`) : path.join(PROJECT_ROOT, 'BENCHMARKS.md');
  return {
    scale,
    runs,
    refreshRuns: number('refresh-runs', values['refresh-runs'], runs, (v) => Number.isInteger(v) && v >= 1 && v <= runs),
    night: number('night', values.night, 1, (v) => Number.isInteger(v) && v >= 1),
    out: values.out ? path.resolve(values.out) : defaultOut,
    section: sectionName(values.section!),
    // The whole refresh is of every source.
    skipRefresh: (values['skip-refresh'] ?? false) || only !== undefined,
    keepDatabase: values['keep-database'] ?? false,
    ...(only ? { only } : {}),
  };
}

/** A phase's steps as the ledger's `details` holds them (`publishStepsMs`, `stageStepsMs`), in seconds. */
async function ledgerSteps(pool: pg.Pool, runId: string, sourceId: string, key: 'publishStepsMs' | 'stageStepsMs'): Promise<Record<string, number> | undefined> {
  const result = await pool.query<{ steps: Record<string, number> | null }>(`SELECT details->$3 AS steps FROM source_run WHERE run_id = $1 AND source_id = $2`, [runId, sourceId, key]);
  const steps = result.rows[0]?.steps;
  return steps ? Object.fromEntries(Object.entries(steps).map(([step, ms]) => [step, Number(ms) / 1000])) : undefined;
}

async function sourceLoad(pool: pg.Pool, run: PipelineRun, sourceId: string): Promise<SourceLoad> {
  const entry: LedgerEntry = run.ledger[sourceId];
  return {
    publishSteps: await ledgerSteps(pool, run.runId, sourceId, 'publishStepsMs'),
    stageSteps: await ledgerSteps(pool, run.runId, sourceId, 'stageStepsMs'),
    seconds: run.seconds,
    outcome: entry.outcome,
    phases: Object.fromEntries(Object.entries(entry.durationsMs).map(([phase, ms]) => [phase, ms / 1000])),
    rowsStaged: entry.rowsStaged,
    inserted: entry.inserted,
    updated: entry.updated,
    deleted: entry.deleted,
  };
}

/**
 * no-business's night as the nightly runs it, from the updates feed: a local stand-in of
 * Brønnøysund's API serving the changes between the two nights' downloads.
 */
async function businessFeedServer(night0: BenchSample, night1: BenchSample): Promise<{ url: string; counts: { new: number; changed: number; deleted: number }; stop: () => Promise<void> }> {
  const server = await new BrregServer().start();
  // The feed's page size as the adapter asks for it (the real API caps a page at 10,000 items).
  server.pageCap = 10_000;
  const counts = await feedBetween(server, night0.sourceFiles['no-business'], night1.sourceFiles['no-business']);
  return { url: `${server.base}/oppdateringer`, counts, stop: () => server.stop() };
}

async function main(): Promise<void> {
  const options = parseNightOptions(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const loadBefore = await loadAverage();
  const monitor = monitorLoad();
  const state = await sourceState();
  const size = parseOptions(['--scale', String(options.scale)]);
  log(`samples: ${size.sizeLabel}, night 0 and night ${options.night} (generated once, then reused); load average ${loadBefore}`);
  const night0: BenchSample = await ensureSample(size.sampleDir, size, log);
  const night1: BenchSample = await ensureSample(`${size.sampleDir}-night-${options.night}`, { ...size, night: options.night }, log);

  await mkdir(WORK_DIR, { recursive: true });
  let server: TemporalServer | undefined;
  let pipeline: PipelineClient | undefined;
  let worker: WorkerProcess | undefined;
  let pool: pg.Pool | undefined;
  const stopWorker = async () => {
    await worker?.stop().catch(() => undefined);
    worker = undefined;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the worker and the Temporal dev server`);
    void stopWorker().then(() => server?.stop()).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    server = await startTemporalServer(path.join(WORK_DIR, 'temporal.log'));
    pipeline = await connectPipelineClient(server.address);
    const snapshot = await snapshotBuild(WORK_DIR);
    log(`measured code: commit ${state.commit}${state.uncommitted.length ? ` + uncommitted ${state.uncommitted.join(', ')}` : ''}, build ${snapshot.fingerprint}`);
    const workerLog = path.join(WORK_DIR, 'worker.log');
    await writeFile(workerLog, '');
    const dataDir = path.join(WORK_DIR, 'data');

    /** A fresh database and worker data folder, and a pool on it. */
    const freshStore = async (): Promise<string> => {
      await pool?.end();
      const databaseUrl = await recreateDatabase(DATABASE);
      pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: 'nordprop-bench-night' });
      await rm(dataDir, { recursive: true, force: true });
      await mkdir(dataDir, { recursive: true });
      return databaseUrl;
    };
    const env = (databaseUrl: string, inputDir: string): WorkerEnv => ({ bin: snapshot.bin, databaseUrl, temporalAddress: server!.address, taskQueue: TASK_QUEUE, dataDir, inputDir });

    const sources: SourceNight[] = SOURCES.filter((source) => !options.only || options.only.includes(source.id))
      .map((source) => ({ sourceId: source.id, country: source.country, firstLoads: [], nights: [] }));
    const refresh: RefreshNight | null = options.skipRefresh ? null : { firstSeconds: [], nightSeconds: [], firstDeriveSeconds: [], nightDeriveSeconds: [], nightSources: {} };
    let machine: Awaited<ReturnType<typeof machineInfo>> | undefined;
    let businessFeed: NightBenchRun['businessFeed'];
    for (let repetition = 1; repetition <= options.runs; repetition++) {
      let databaseUrl = await freshStore();
      machine ??= await machineInfo(pool!);
      worker = await startWorker(env(databaseUrl, night0.dir), workerLog);
      for (const [phase, sample] of [['first load', night0], [`night ${options.night}`, night1]] as const) {
        for (const source of sources) {
          const input = sample.sourceFiles[source.sourceId];
          if (!input) throw new Error(`the sample has no file for ${source.sourceId}`);
          // Served before the machine settles: reading both downloads is no part of the night.
          const feed = phase !== 'first load' && source.sourceId === 'no-business' ? await businessFeedServer(night0, night1) : undefined;
          if (feed) businessFeed = feed.counts;
          await settle(pool!);
          const run = phase === 'first load'
            ? await runBackfill(pipeline, pool!, TASK_QUEUE, source.sourceId, input)
            : await runSourceNight(pipeline, pool!, TASK_QUEUE, source.sourceId, feed?.url ?? input).finally(() => feed?.stop());
          const load = await sourceLoad(pool!, run, source.sourceId);
          (phase === 'first load' ? source.firstLoads : source.nights).push(load);
          log(`run ${repetition}, ${phase}, ${source.sourceId}: ${load.outcome}, ${load.seconds.toFixed(1)} s [${Object.entries(load.phases).map(([p, v]) => `${p} ${v.toFixed(1)}`).join(', ')}], ` +
            `+${load.inserted} ~${load.updated} -${load.deleted}, load average ${(await loadAverage()).split(' ')[0]}`);
        }
      }
      await stopWorker();

      if (refresh && repetition <= options.refreshRuns) {
        databaseUrl = await freshStore();
        const ids = SOURCES.map((source) => source.id);
        for (const [phase, sample] of [['first load', night0], [`night ${options.night}`, night1]] as const) {
          worker = await startWorker(env(databaseUrl, sample.dir), workerLog);
          await settle(pool!);
          // As scheduled: every source, then the derived datasets (before 2026-11-26 18:10 this
          // benchmark named the sources and so left the derived datasets out of the refresh).
          const run = await runNightly(pipeline, pool!, TASK_QUEUE, ids, { derive: true });
          await stopWorker();
          const deriveSeconds = (run.summary.derived?.durationMs ?? 0) / 1000;
          if (phase === 'first load') {
            refresh.firstSeconds.push(run.seconds);
            refresh.firstDeriveSeconds!.push(deriveSeconds);
          } else {
            refresh.nightSeconds.push(run.seconds);
            refresh.nightDeriveSeconds!.push(deriveSeconds);
            for (const id of ids) (refresh.nightSources[id] ??= []).push(run.ledger[id].ledgerSeconds);
          }
          log(`run ${repetition}, whole refresh, ${phase}: ${run.seconds.toFixed(1)} s, load average ${(await loadAverage()).split(' ')[0]}`);
        }
      }
    }

    const samples = monitor.stop();
    const load = samples.length ? spread(samples) : { median: 0, max: 0 };
    const result: NightBenchRun = {
      startedAt,
      finishedAt: new Date().toISOString(),
      commit: state.commit,
      uncommitted: state.uncommitted,
      build: snapshot.fingerprint,
      machine: { cpuModel: machine!.cpuModel, cores: machine!.cores, memoryGiB: machine!.memoryGiB, postgres: machine!.postgres, postgresSettings: machine!.postgresSettings, serverUpSeconds: machine!.serverUpSeconds },
      section: options.section,
      sample: { sizeLabel: size.sizeLabel, scale: options.scale, seed: 'bench', night: options.night, rows0: night0.rows, rows1: night1.rows },
      runs: options.runs,
      loadAverage: { before: loadBefore, after: await loadAverage(), median: load.median, max: load.max },
      sources,
      refresh,
      ...(businessFeed ? { businessFeed } : {}),
      ...(options.only ? { only: options.only } : {}),
    };
    await mkdir(path.join(PROJECT_ROOT, '.data/bench'), { recursive: true });
    const suffix = `${options.section === NIGHT_SECTION ? '' : `-${options.section}`}${options.only ? `-${options.only.join('-')}` : ''}`;
    await writeFile(path.join(PROJECT_ROOT, `.data/bench/changed-night-${size.sizeLabel}${suffix}.json`), `${JSON.stringify(result, null, 2)}\n`);
    const section = renderNightSection(result);
    await replaceSection(options.out, options.section, section);
    process.stdout.write(section);
    log(`section ${options.section} written to ${path.relative(PROJECT_ROOT, options.out)}`);
  } finally {
    monitor.stop();
    await stopWorker();
    await pipeline?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    if (options.keepDatabase) log(`database ${DATABASE} left in place (--keep-database)`);
    else await dropBenchDatabase(DATABASE).catch((error) => log(`could not drop ${DATABASE}: ${(error as Error).message}`));
  }
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
