/**
 * `npm run bench:check`: a load-time regression check of every source of both countries.
 *
 * Loads every register of the national-profile sample at a small scale (default
 * DEFAULT_SCALE, so the whole check takes about ten minutes on two cores) into a fresh
 * database, one forced backfill per source in registry order, each a first load, through one
 * pipeline worker (a fresh one after a source fails or is stopped), as a user's nightly would.
 * It times each load end to end and per phase (stage, validate, publish, from the ledger's
 * durations_ms), runs ogr2ogr on the files bench/ogr2ogr.ts compares against (Norwegian
 * addresses and teiger, the Swedish parcels), and compares every time with the run recorded
 * in bench/regression-baseline.json at the same sample size (bench/regression-compare.ts
 * says when a source fails). It exits 1 with a table of the failing sources when any source
 * is more than 2× slower than recorded (and at least 2 s slower), did not load, or ran past its
 * time limit (5× its recorded time, at least 2 minutes: a planner regression must not hold the
 * check for an hour); 2 when nothing is recorded at that size.
 *
 *   npm run bench:check                     # check against the recorded run
 *   npm run bench:check -- --record         # check, then record this run as the new baseline
 *                                           #   (and write its table into BENCHMARKS.md)
 *   npm run bench:check -- --scale 0.02     # another size: its own recorded run
 *
 * The sample is generated once into .data/bench/sample-national-<scale> (shared with
 * `npm run bench -- --scale <scale>`); the worker runs a frozen copy of dist/ and bin/ in
 * .data/bench-check/snapshot, so a rebuild during the run cannot mix two versions.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../lib/config.js';
import { startTemporalServer, type TemporalServer } from '../lib/temporal/dev-server.js';
import { GENERATOR_VERSION } from '../sample/manifest.js';
import { SOURCES } from '../sources/registry.js';
import { CADASTRE_LAYER } from '../sources/se/cadastre/adapter.js';
import { sourceState } from './build-stamp.js';
import { dropBenchDatabase, ledgerEntry, recreateDatabase, settle, type LedgerEntry } from './database.js';
import { monitorLoad } from './load-monitor.js';
import { loadAverage, machineInfo } from './machine.js';
import { addressLoad, dropOgrTable, measureOgr, seCadastreLoad, teigLoad, type OgrLoad } from './ogr2ogr.js';
import { numberOption, parseOptions } from './options.js';
import { connectPipelineClient, PipelineTimeout, runBackfill, type PipelineClient } from './pipeline-run.js';
import {
  compareRuns,
  DEFAULT_SCALE,
  DEFAULT_THRESHOLDS,
  fmtWall,
  loadWarning,
  renderCheck,
  renderFailureTable,
  SECTION,
  renderSourceTable,
  type BaselineFile,
  type CheckRun,
  type OgrTiming,
  type SourceTiming,
  type Thresholds,
} from './regression-compare.js';
import { replaceSection } from './report-section.js';
import { ensureSample, type BenchSample } from './sample-data.js';
import { snapshotBuild } from './snapshot.js';
import { spread } from './stats.js';
import { startWorker, type WorkerEnv, type WorkerProcess } from './worker-process.js';

const DATABASE = 'nordprop_bench_check';
const TASK_QUEUE = 'bench-check';
const APPLICATION = 'nordprop-bench-check';
const BASELINE = path.join(PROJECT_ROOT, 'bench/regression-baseline.json');
const WORK_DIR = path.join(PROJECT_ROOT, '.data/bench-check');
/** A source with nothing recorded may run this long (a first --record, a new source). */
const UNRECORDED_LIMIT_SECONDS = 30 * 60;

const USAGE = `usage: npm run bench:check -- [--scale S] [--record] [--ratio R] [--floor SECONDS] [--limit SECONDS] [--skip-ogr] [--keep-database] [--baseline FILE]
  --scale S        national profile at S × national size (default ${DEFAULT_SCALE}); each size has its own recorded run
  --record         after the check, record this run as the baseline of its size (bench/regression-baseline.json)
                   and write its table into BENCHMARKS.md (section ${SECTION}); refused when a source did not load
  --ratio R        fail a source more than R × slower than recorded (default ${DEFAULT_THRESHOLDS.ratio})
  --floor SECONDS  …and at least this much slower (default ${DEFAULT_THRESHOLDS.floorSeconds}), so tiny sources do not flake
  --limit SECONDS  stop any source still loading after this long (default 5 × its recorded time, at least 120 s;
                   ${UNRECORDED_LIMIT_SECONDS / 60} minutes for a source with nothing recorded)
  --skip-ogr       do not load the compared files with ogr2ogr
  --keep-database  leave the loaded store (database ${DATABASE}) in place, e.g. for node dist/bench/derive.js
  --baseline FILE  the recorded runs (default bench/regression-baseline.json; with another file, --record
                   leaves BENCHMARKS.md alone)
Exit status: 0 no regression, 1 a source regressed or did not load, 2 nothing recorded at this size (run with --record).`;

const log = (line: string) => process.stderr.write(`[bench:check ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface CheckOptions {
  scale: number;
  record: boolean;
  thresholds: Thresholds;
  skipOgr: boolean;
  keepDatabase: boolean;
  baseline: string;
  /** Overrides every source's time limit. */
  limitSeconds: number | undefined;
}

function parseCheckOptions(argv: string[]): CheckOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string' },
      record: { type: 'boolean', default: false },
      ratio: { type: 'string' },
      floor: { type: 'string' },
      limit: { type: 'string' },
      'skip-ogr': { type: 'boolean', default: false },
      'keep-database': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, text: string | undefined, fallback: number, ok: (v: number) => boolean) => numberOption(name, text, fallback, ok, USAGE);
  return {
    scale: number('scale', values.scale, DEFAULT_SCALE, (v) => v > 0 && v <= 1),
    record: values.record ?? false,
    thresholds: {
      ratio: number('ratio', values.ratio, DEFAULT_THRESHOLDS.ratio, (v) => v > 1),
      floorSeconds: number('floor', values.floor, DEFAULT_THRESHOLDS.floorSeconds, (v) => v >= 0),
    },
    skipOgr: values['skip-ogr'] ?? false,
    keepDatabase: values['keep-database'] ?? false,
    baseline: values.baseline ? path.resolve(values.baseline) : BASELINE,
    limitSeconds: values.limit === undefined ? undefined : number('limit', values.limit, 0, (v) => v > 0),
  };
}

async function readBaseline(file: string): Promise<BaselineFile> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return { about: '', runs: {} };
  return JSON.parse(text) as BaselineFile;
}

const ABOUT = 'The last run of `npm run bench:check -- --record` per sample size (bench/regression-check.ts): each source\'s load times, end to end and per phase, in seconds. `npm run bench:check` fails on a source more than 2x slower than recorded here.';

/** The time a source may run before it is stopped: well past failing, far short of an hour. */
function timeLimit(recorded: SourceTiming | undefined): number {
  if (!recorded || recorded.status !== 'loaded') return UNRECORDED_LIMIT_SECONDS;
  return Math.round(Math.max(120, 5 * recorded.seconds));
}

const seconds = (ms: number | undefined) => (typeof ms === 'number' ? ms / 1000 : undefined);

function phaseSeconds(entry: LedgerEntry | null): Record<string, number> {
  if (!entry) return {};
  return Object.fromEntries(Object.entries(entry.durationsMs).map(([phase, ms]) => [phase, seconds(ms)!]));
}

/** The steps of a multi-table publish the adapter timed (source_run.details.publishStepsMs), in seconds. */
async function publishSteps(pool: pg.Pool, runId: string, sourceId: string): Promise<Record<string, number> | undefined> {
  const result = await pool.query<{ steps: Record<string, number> | null }>(
    `SELECT details->'publishStepsMs' AS steps FROM source_run WHERE run_id = $1 AND source_id = $2`,
    [runId, sourceId],
  );
  const steps = result.rows[0]?.steps;
  if (!steps || !Object.keys(steps).length) return undefined;
  return Object.fromEntries(Object.entries(steps).map(([step, ms]) => [step, Number(ms) / 1000]));
}

async function oneMinuteLoad(): Promise<number | null> {
  const value = Number((await loadAverage()).split(' ')[0]);
  return Number.isFinite(value) ? value : null;
}

/** Stops every session on the check's database but this program's own (a stopped run's statement). */
async function stopOtherSessions(pool: pg.Pool): Promise<void> {
  await pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> $2`,
    [DATABASE, APPLICATION],
  );
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 300);
}

/** The ogr2ogr loads of the files bench/ogr2ogr.ts compares, by the nordprop source reading the same file. */
function ogrLoads(sample: BenchSample): Array<{ sourceId: string; load: () => Promise<OgrLoad> }> {
  const loads: Array<{ sourceId: string; load: () => Promise<OgrLoad> }> = [
    { sourceId: 'no-address', load: () => addressLoad(DATABASE, sample.address.zipPath, sample.address.entry) },
    { sourceId: 'no-cadastre', load: () => teigLoad(DATABASE, sample.teig.zipPath, sample.teig.entry) },
  ];
  const gpkg = sample.sourceFiles['se-cadastre'];
  if (gpkg) loads.push({ sourceId: 'se-cadastre', load: () => seCadastreLoad(DATABASE, gpkg, CADASTRE_LAYER) });
  return loads;
}

async function main(): Promise<number> {
  const options = parseCheckOptions(process.argv.slice(2));
  const started = process.hrtime.bigint();
  const size = parseOptions(['--scale', String(options.scale)]);
  const loadBefore = await loadAverage();
  const monitor = monitorLoad();
  const state = await sourceState();
  const baseline = await readBaseline(options.baseline);
  const recorded = baseline.runs[size.sizeLabel];
  if (!recorded && !options.record) {
    log(`nothing recorded at ${size.sizeLabel} in ${path.relative(PROJECT_ROOT, options.baseline)}: run \`npm run bench:check -- --scale ${options.scale} --record\` first`);
    return 2;
  }
  log(`sample: ${size.sizeLabel} in ${path.relative(PROJECT_ROOT, size.sampleDir)} (generated once, then reused); load average ${loadBefore}`);
  const sample = await ensureSample(size.sampleDir, size, log);
  if (sample.generated) log(`sample generated in ${sample.generateSeconds.toFixed(0)} s`);

  await mkdir(WORK_DIR, { recursive: true });
  log(`database ${DATABASE}: drop, create, migrate`);
  const databaseUrl = await recreateDatabase(DATABASE);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: APPLICATION });
  let server: TemporalServer | undefined;
  let pipeline: PipelineClient | undefined;
  let worker: WorkerProcess | undefined;
  const stopAll = async () => {
    await worker?.stop().catch(() => undefined);
    worker = undefined;
    await server?.stop().catch(() => undefined);
    server = undefined;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the worker and the Temporal dev server`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const machine = await machineInfo(pool);
    const dataDir = path.join(WORK_DIR, 'data');
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true });
    server = await startTemporalServer(path.join(WORK_DIR, 'temporal.log'));
    pipeline = await connectPipelineClient(server.address);
    const snapshot = await snapshotBuild(WORK_DIR);
    log(`measured code: commit ${state.commit}${state.uncommitted.length ? ` + uncommitted ${state.uncommitted.join(', ')}` : ''}, build ${snapshot.fingerprint}`);
    const workerEnv: WorkerEnv = { bin: snapshot.bin, databaseUrl, temporalAddress: server.address, taskQueue: TASK_QUEUE, dataDir, inputDir: sample.dir };
    const workerLog = path.join(WORK_DIR, 'worker.log');
    await writeFile(workerLog, '');

    const recordedBySource = new Map((recorded?.sources ?? []).map((s) => [s.sourceId, s]));
    const timings: SourceTiming[] = [];
    const loaded = new Set<string>();
    for (const source of SOURCES) {
      const input = sample.sourceFiles[source.id];
      const skip = (note: string): void => {
        timings.push({ sourceId: source.id, country: source.country, status: 'skipped', seconds: 0, phases: {}, rowsStaged: 0, loadAverage: null, note });
        log(`== ${source.id}: skipped, ${note}`);
      };
      if (!input) {
        skip('the sample has no file for it');
        continue;
      }
      const missing = (source.dependsOn ?? []).filter((id) => !loaded.has(id));
      if (missing.length) {
        skip(`it reads ${missing.join(', ')}, which did not load`);
        continue;
      }
      const limit = options.limitSeconds ?? timeLimit(recordedBySource.get(source.id));
      await settle(pool);
      worker ??= await startWorker(workerEnv, workerLog);
      log(`== ${source.id}: backfill of ${path.relative(PROJECT_ROOT, input)} (stopped after ${limit} s)`);
      let timing: SourceTiming;
      try {
        const run = await runBackfill(pipeline, pool, TASK_QUEUE, source.id, input, limit);
        const entry = run.ledger[source.id];
        timing = {
          sourceId: source.id, country: source.country, status: 'loaded', seconds: run.seconds, phases: phaseSeconds(entry), rowsStaged: entry.rowsStaged,
          loadAverage: await oneMinuteLoad(), publishSteps: await publishSteps(pool, run.runId, source.id),
        };
        loaded.add(source.id);
      } catch (error) {
        // A stopped or failed run: a fresh worker for the next source, and no statement of it left running.
        await worker.stop().catch(() => undefined);
        worker = undefined;
        await stopOtherSessions(pool);
        const runId = error instanceof PipelineTimeout ? error.runId : null;
        const entry = runId ? await ledgerEntry(pool, runId, source.id).catch(() => null) : null;
        timing = {
          sourceId: source.id,
          country: source.country,
          status: error instanceof PipelineTimeout ? 'stopped' : 'failed',
          seconds: error instanceof PipelineTimeout ? error.seconds : 0,
          phases: phaseSeconds(entry),
          rowsStaged: entry?.rowsStaged ?? 0,
          loadAverage: await oneMinuteLoad(),
          note: error instanceof PipelineTimeout ? undefined : firstLine(error),
        };
      }
      timings.push(timing);
      const phases = Object.entries(timing.phases).map(([p, s]) => `${p} ${s!.toFixed(1)}`).join(', ');
      log(`${source.id}: ${timing.status}, ${timing.seconds.toFixed(1)} s, ${timing.rowsStaged} rows [${phases}], load average ${timing.loadAverage?.toFixed(2) ?? '?'}${timing.note ? `: ${timing.note}` : ''}`);
    }
    await worker?.stop();
    worker = undefined;

    const ogr: OgrTiming[] = [];
    if (!options.skipOgr) {
      for (const { sourceId, load: makeLoad } of ogrLoads(sample)) {
        const load = await makeLoad();
        try {
          const m = await measureOgr(pool, load);
          ogr.push({ sourceId, label: load.label, seconds: m.seconds, rows: m.rows });
          log(`ogr2ogr ${load.label}: ${m.seconds.toFixed(1)} s, ${m.rows} rows`);
        } catch (error) {
          log(`ogr2ogr ${load.label} failed (not judged): ${firstLine(error)}`);
        } finally {
          await dropOgrTable(pool, load).catch(() => undefined);
          await load.dispose();
        }
      }
    }

    const samples = monitor.stop();
    const load = samples.length ? spread(samples) : { median: 0, max: 0 };
    const current: CheckRun = {
      recordedAt: new Date().toISOString(),
      commit: state.commit,
      uncommitted: state.uncommitted,
      build: snapshot.fingerprint,
      machine: { cpuModel: machine.cpuModel, cores: machine.cores, memoryGiB: Math.round(machine.memoryGiB), postgres: machine.postgres },
      sample: { sizeLabel: size.sizeLabel, profile: sample.profile, scale: sample.scale, seed: 'bench', generatorVersion: GENERATOR_VERSION },
      loadAverage: { before: loadBefore, after: await loadAverage(), median: load.median, max: load.max },
      wallSeconds: Number(process.hrtime.bigint() - started) / 1e9,
      loadSeconds: timings.reduce((sum, t) => sum + t.seconds, 0),
      sources: timings,
      ogr,
    };
    const comparison = compareRuns(recorded, current, options.thresholds);
    const report = renderCheck(comparison, recorded, current, options);
    await writeFile(path.join(WORK_DIR, `results-${size.sizeLabel}.json`), `${JSON.stringify(current, null, 2)}\n`);
    await writeFile(path.join(WORK_DIR, `report-${size.sizeLabel}.md`), report);
    process.stdout.write(`\n${report}\n`);

    const unloaded = timings.filter((t) => t.status !== 'loaded');
    if (options.record) {
      if (unloaded.length) {
        log(`NOT recorded: ${unloaded.map((t) => `${t.sourceId} ${t.status}`).join(', ')} (a baseline needs every source loaded)`);
        return 1;
      }
      baseline.about = ABOUT;
      baseline.runs[size.sizeLabel] = current;
      await writeFile(options.baseline, `${JSON.stringify(baseline, null, 2)}\n`);
      const committed = options.baseline === BASELINE;
      if (committed) await replaceSection(path.join(PROJECT_ROOT, 'BENCHMARKS.md'), SECTION, report);
      log(`recorded as the ${size.sizeLabel} baseline in ${path.relative(PROJECT_ROOT, options.baseline)}${committed ? `; BENCHMARKS.md section ${SECTION} written` : ''}${comparison.failures.length ? ` (accepting ${comparison.failures.length} source(s) slower than the previous record)` : ''}`);
      return 0;
    }
    if (comparison.failures.length) {
      const warning = loadWarning(current, recorded);
      process.stderr.write(`\nREGRESSION CHECK FAILED: ${comparison.failures.map((f) => f.sourceId).join(', ')} (load average median ${load.median.toFixed(1)}, max ${load.max.toFixed(1)} on ${machine.cores} cores)\n\n${renderFailureTable(comparison)}\n\n${warning.length ? `${warning.join('\n').replace(/\*\*/g, '')}\n\n` : ''}`);
      return 1;
    }
    log(`no source more than ${options.thresholds.ratio}× slower than recorded (whole check ${fmtWall(current.wallSeconds)})`);
    return 0;
  } finally {
    monitor.stop();
    await pipeline?.close().catch(() => undefined);
    await stopAll();
    await pool.end();
    if (options.keepDatabase) log(`database ${DATABASE} left in place (--keep-database)`);
    else await dropBenchDatabase(DATABASE).catch((error) => log(`could not drop ${DATABASE}: ${(error as Error).message}`));
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  },
);
