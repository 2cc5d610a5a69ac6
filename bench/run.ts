/**
 * `npm run bench`: measures nordprop's loads of the national-size sample registers against
 * the raw-COPY ceiling and ogr2ogr, side by side in one run, and writes BENCHMARKS.md.
 * Every process it starts (Temporal dev server, workers) is its own and is stopped at the end.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sourceState } from './build-stamp.js';
import { dumpTable, measureCopy, type CeilingShape } from './copy-ceiling.js';
import { dropBenchDatabase, recreateDatabase, resetSource } from './database.js';
import { monitorLoad } from './load-monitor.js';
import { loadAverage, machineInfo } from './machine.js';
import { addressLoad, dropOgrTable, measureOgr, seCadastreLoad, teigLoad, type OgrLoad } from './ogr2ogr.js';
import { parseOptions, type BenchOptions } from './options.js';
import { canReplayPublish, type PublishBreakdown } from './publish-breakdown.js';
import { snapshotBuild, type BuildSnapshot } from './snapshot.js';
import type { StageLevel } from './stage-breakdown.js';
import { connectPipelineClient, runBackfill, runNightly, type PipelineClient, type PipelineRun } from './pipeline-run.js';
import { measureRegisterLoads } from './register-loads.js';
import { renderSummary } from './report.js';
import { writeReport } from './write-report.js';
import { SOURCES } from '../sources/registry.js';
import type { BenchResults, LoadRun, NightlyRun, OgrResult, SourceResult } from './results.js';
import { describeFile, describeSampleSize, ensureSample, type BenchSample, type InputFile } from './sample-data.js';
import { CADASTRE_LAYER } from '../sources/se/cadastre/adapter.js';
import type { Country } from '../lib/domain/country.js';
import { startTemporalServer, type TemporalServer } from '../lib/temporal/dev-server.js';
import { startWorker, type MemoryPeak, type WorkerEnv, type WorkerProcess } from './worker-process.js';

const TASK_QUEUE = 'bench';

const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface Context {
  options: BenchOptions;
  snapshot: BuildSnapshot;
  databaseUrl: string;
  pool: pg.Pool;
  pipeline: PipelineClient;
  workerEnv: WorkerEnv;
  workerLog: string;
}

/** Processes to stop however the run ends. */
const running = new Set<{ stop(): Promise<void> }>();

async function withWorker<T>(ctx: Context, work: () => Promise<T>): Promise<{ result: T; memory: MemoryPeak; build: string }> {
  const build = ctx.snapshot.fingerprint;
  const worker: WorkerProcess = await startWorker(ctx.workerEnv, ctx.workerLog);
  running.add(worker);
  try {
    const result = await work();
    const memory = await worker.memoryPeak();
    return { result, memory, build };
  } finally {
    await worker.stop();
    running.delete(worker);
  }
}

function loadRun(run: PipelineRun, sourceId: string, memory: MemoryPeak, build: string): LoadRun {
  const entry = run.ledger[sourceId];
  return {
    runId: run.runId,
    seconds: run.seconds,
    rowsRead: entry.rowsRead,
    rowsStaged: entry.rowsStaged,
    rowsRejected: entry.rowsRejected,
    rowsRepaired: entry.rowsRepaired,
    inserted: entry.inserted,
    phasesMs: entry.durationsMs,
    memory,
    build,
  };
}

async function measureLoads(ctx: Context, sourceId: string, input: InputFile): Promise<LoadRun[]> {
  const loads: LoadRun[] = [];
  for (let i = 1; i <= ctx.options.runs; i++) {
    await resetSource(ctx.pool, sourceId);
    const { result: run, memory, build } = await withWorker(ctx, () => runBackfill(ctx.pipeline, ctx.pool, TASK_QUEUE, sourceId, input.zipPath));
    const load = loadRun(run, sourceId, memory, build);
    loads.push(load);
    const phases = Object.entries(load.phasesMs).map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)}`).join(', ');
    log(`${sourceId} run ${i}/${ctx.options.runs}: ${load.seconds.toFixed(1)} s, ${load.rowsStaged} rows, ${Math.round(load.rowsStaged / load.seconds)} rows/s [${phases}], worker CPU ${memory.cpuSeconds.toFixed(1)} s, VmHWM ${Math.round(memory.peakBytes / 2 ** 20)} MiB, tree RSS ${Math.round(memory.sampledTreeRssBytes / 2 ** 20)} MiB (${memory.processes} processes)`);
  }
  return loads;
}

/** A breakdown in a child process running the snapshot's code (see breakdown-main.ts). */
function runBreakdown<T>(ctx: Context, args: string[]): Promise<T> {
  const script = path.join(ctx.snapshot.dist, 'bench/breakdown-main.js');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, NORDPROP_ENV_FILE: '' }, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`breakdown ${args.slice(0, 2).join(' ')} failed: ${stderr.slice(-2000) || error.message}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}

async function measureCeiling(ctx: Context, table: string): Promise<{ ceiling: SourceResult['ceiling']; dumpBytes: number; publishedRows: number }> {
  const dump = await dumpTable(ctx.pool, table);
  try {
    const ceiling = { indexed: [], bare: [], 'bare-then-index': [] } as SourceResult['ceiling'];
    for (let i = 1; i <= ctx.options.runs; i++) {
      for (const shape of Object.keys(ceiling) as CeilingShape[]) {
        const m = await measureCopy(ctx.pool, dump, shape);
        ceiling[shape].push(m);
        log(`COPY ${table} (${shape}) run ${i}: ${m.seconds.toFixed(1)} s, ${Math.round(m.rows / m.seconds)} rows/s`);
      }
    }
    return { ceiling, dumpBytes: dump.bytes, publishedRows: dump.rows };
  } finally {
    await dump.dispose();
  }
}

async function measureOgrLoads(ctx: Context, load: OgrLoad, expectedRows: number): Promise<OgrResult> {
  try {
    const runs = [];
    for (let i = 1; i <= ctx.options.runs; i++) {
      const m = await measureOgr(ctx.pool, load);
      runs.push(m);
      log(`ogr2ogr ${load.label} run ${i}: ${m.seconds.toFixed(1)} s, ${m.rows} rows (${m.rowsWithExpectedGeometry} ${load.expectedGeometry}), ${Math.round(m.rows / m.seconds)} rows/s`);
      if (m.rows !== expectedRows) log(`WARNING: ogr2ogr loaded ${m.rows} rows, expected ${expectedRows}`);
    }
    return { label: load.label, command: load.command, runs, expectedRows };
  } finally {
    await dropOgrTable(ctx.pool, load);
    await load.dispose();
  }
}

async function measureSource(
  ctx: Context,
  spec: {
    sourceId: string;
    title: string;
    unit: string;
    table: string;
    input: InputFile;
    expectedRows: number;
    ogr: () => Promise<OgrLoad>;
  },
): Promise<SourceResult> {
  log(`== ${spec.sourceId}: ${ctx.options.runs} end-to-end load(s)`);
  const loads = await measureLoads(ctx, spec.sourceId, spec.input);
  log(`== ${spec.sourceId}: raw COPY ceiling on ${spec.table}`);
  const { ceiling, dumpBytes, publishedRows } = await measureCeiling(ctx, spec.table);
  let publish: PublishBreakdown | null = null;
  if (canReplayPublish(spec.sourceId)) {
    log(`== ${spec.sourceId}: publish statement by statement`);
    publish = await runBreakdown<PublishBreakdown>(ctx, ['publish', spec.sourceId, ctx.databaseUrl]);
    for (const t of publish.firstLoad) log(`  ${t.seconds.toFixed(1)} s  ${t.statement}${t.rows === null ? '' : ` (${t.rows} rows)`}`);
    log(`  publish ${publish.firstLoadSeconds.toFixed(1)} s; plain INSERT ${publish.plainInsertSeconds.toFixed(1)} s; unchanged republish ${publish.unchangedSeconds.toFixed(1)} s`);
  }
  log(`== ${spec.sourceId}: stage steps on their own`);
  const stage = await runBreakdown<StageLevel[]>(ctx, ['stage', spec.sourceId, spec.input.zipPath]);
  for (const l of stage) log(`  ${l.seconds.toFixed(1)} s  ${l.label}`);
  let ogr: SourceResult['ogr'] = { skipped: 'left out with --skip-ogr' };
  if (!ctx.options.skipOgr) {
    log(`== ${spec.sourceId}: ogr2ogr`);
    ogr = await measureOgrLoads(ctx, await spec.ogr(), spec.expectedRows);
  }
  return { sourceId: spec.sourceId, title: spec.title, unit: spec.unit, table: spec.table, input: spec.input, loads, ceiling, dumpBytes, publishedRows, ogr, publish, stage };
}

type ComparedSpec = Parameters<typeof measureSource>[1];

/**
 * The loads measured against the raw-COPY ceiling and ogr2ogr: Norway's addresses and parcels,
 * or, for Sweden alone, its parcels (the GeoPackage a user would otherwise load with ogr2ogr).
 */
async function comparedSources(options: BenchOptions, sample: BenchSample): Promise<ComparedSpec[]> {
  if (options.country === 'SE') {
    const gpkg = sample.sourceFiles['se-cadastre'];
    return [{
      sourceId: 'se-cadastre',
      title: 'Swedish parcels',
      unit: 'area',
      table: 'parcel',
      input: await describeFile(gpkg),
      expectedRows: countLayerRows(gpkg, CADASTRE_LAYER),
      ogr: () => seCadastreLoad(options.databaseName, gpkg, CADASTRE_LAYER),
    }];
  }
  return [
    {
      sourceId: 'no-address',
      title: 'Addresses',
      unit: 'address',
      table: 'address',
      input: sample.address,
      expectedRows: sample.addresses,
      ogr: () => addressLoad(options.databaseName, sample.address.zipPath, sample.address.entry),
    },
    {
      sourceId: 'no-cadastre',
      title: 'Parcels',
      unit: 'parcel',
      table: 'parcel',
      input: sample.teig,
      expectedRows: sample.parcels,
      ogr: () => teigLoad(options.databaseName, sample.teig.zipPath, sample.teig.entry),
    },
  ];
}

/** The rows of a GeoPackage layer, for checking ogr2ogr's count. */
function countLayerRows(gpkgPath: string, layer: string): number {
  const db = new Database(gpkgPath, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM "${layer}"`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function measureNightly(ctx: Context): Promise<NightlyRun[]> {
  log(`== nightly refresh of every source on unchanged inputs: ${ctx.options.runs} run(s)`);
  const sources = SOURCES.filter((s) => !ctx.options.country || s.country === ctx.options.country).map((s) => s.id);
  const runs: NightlyRun[] = [];
  for (let i = 1; i <= ctx.options.runs; i++) {
    const { result: run, memory, build } = await withWorker(ctx, () => runNightly(ctx.pipeline, ctx.pool, TASK_QUEUE, sources));
    const outcomes = Object.fromEntries(Object.entries(run.ledger).map(([s, e]) => [s, e.outcome]));
    const phasesMs = Object.fromEntries(Object.entries(run.ledger).map(([s, e]) => [s, e.durationsMs]));
    runs.push({ runId: run.runId, seconds: run.seconds, outcomes, phasesMs, memory, build });
    log(`nightly run ${i}: ${run.seconds.toFixed(2)} s, ${Object.entries(outcomes).map(([s, o]) => `${s} ${o}`).join(', ')}`);
  }
  return runs;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const loadAverageBefore = await loadAverage();
  const source = await sourceState();
  const load = monitorLoad();
  await mkdir(options.workDir, { recursive: true });
  log(`sample: ${options.sizeLabel} in ${path.relative(process.cwd(), options.sampleDir)} (generated once, then reused)`);
  const sample: BenchSample = await ensureSample(options.sampleDir, options, log);
  log(`sample ${sample.generated ? `generated in ${sample.generateSeconds.toFixed(0)} s` : 'reused'}: ${describeSampleSize(sample)}, ${sample.addresses} addresses, ${sample.parcels} parcels, ${sample.seProperties} Swedish properties`);

  log(`database ${options.databaseName}: drop, create, migrate`);
  const databaseUrl = await recreateDatabase(options.databaseName);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: 'nordprop-bench' });
  let server: TemporalServer | undefined;
  let pipeline: PipelineClient | undefined;
  const stopAll = async () => {
    for (const child of [...running].reverse()) await child.stop().catch(() => undefined);
    running.clear();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the worker and the Temporal dev server`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const machine = await machineInfo(pool);
    const dataDir = path.join(options.workDir, 'data');
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true });
    server = await startTemporalServer(path.join(options.workDir, 'temporal.log'));
    running.add(server);
    log(`Temporal dev server on ${server.address} (pid ${server.pid})`);
    pipeline = await connectPipelineClient(server.address);
    const snapshot = await snapshotBuild(options.workDir);
    log(`measured code: snapshot of bin/ and dist/ (fingerprint ${snapshot.fingerprint}) in ${path.relative(process.cwd(), snapshot.root)}`);
    const ctx: Context = {
      options,
      snapshot,
      databaseUrl,
      pool,
      pipeline,
      workerEnv: { bin: snapshot.bin, databaseUrl, temporalAddress: server.address, taskQueue: TASK_QUEUE, dataDir, inputDir: sample.dir },
      workerLog: path.join(options.workDir, 'worker.log'),
    };

    const compared: SourceResult[] = [];
    for (const spec of await comparedSources(options, sample)) compared.push(await measureSource(ctx, spec));
    const registers = await measureRegisterLoads(pool, options.runs, sample.sourceFiles, options.country, compared.map((c) => c.sourceId), async (sourceId, input) => {
      const { result: run, memory, build } = await withWorker(ctx, () => runBackfill(pipeline!, pool, TASK_QUEUE, sourceId, input));
      return loadRun(run, sourceId, memory, build);
    }, log);
    // Every source is published now (each reset only its own rows): the nightly finds all unchanged.
    const nightly = await measureNightly(ctx);

    const results: BenchResults = {
      startedAt,
      finishedAt: new Date().toISOString(),
      runs: options.runs,
      machine,
      source,
      loadAverageBefore,
      loadAverageAfter: await loadAverage(),
      loadSamples: load.stop(),
      sample,
      country: options.country,
      compared,
      registers,
      nightly,
    };
    await writeFile(path.join(options.workDir, `results-${options.sizeLabel}.json`), `${JSON.stringify(results, null, 2)}\n`);
    await writeReport(results, options.out);
    if (!options.skipDerive) {
      log('== derived datasets on the loaded store (bench/derive.ts), section added to the report');
      await runDeriveBench(ctx.snapshot.dist, databaseUrl, options.out, options.runs, options.country);
    }
    // The API and webhook benchmarks read Norwegian properties and owners.
    const norway = options.country !== 'SE';
    if (!norway && !(options.skipApi && options.skipWebhooks)) log('REST API and webhook benchmarks left out: they read Norwegian properties, and this run loaded Sweden only');
    if (norway && !options.skipApi) {
      log('== REST API under load on the loaded store (bench/api-load.ts), section added to the report');
      await runApiLoad(ctx.snapshot.dist, databaseUrl, options.out);
    }
    if (norway && !options.skipWebhooks) {
      log('== change events and webhook delivery on the loaded store (bench/webhooks.ts), section added to the report');
      await runWebhooksBench(ctx.snapshot.dist, databaseUrl, options.out, options.runs);
    }
    process.stdout.write(renderSummary(results, options.out));
  } finally {
    await pipeline?.close().catch(() => undefined);
    await stopAll();
    await pool.end();
    if (options.keepDatabase) log(`database ${options.databaseName} left in place (--keep-database)`);
    else await dropBenchDatabase(options.databaseName).catch((error) => log(`could not drop ${options.databaseName}: ${(error as Error).message}`));
  }
}

/** The API load test runs as its own program (it starts its own API process) on this store. */
function runApiLoad(dist: string, databaseUrl: string, report: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(dist, 'bench/api-load.js'), '--database-url', databaseUrl, '--report', report], { maxBuffer: 64 * 2 ** 20 }, (error, _stdout, stderr) => {
      process.stderr.write(stderr);
      if (error) reject(new Error(`API load test failed: ${error.message}`));
      else resolve();
    });
  });
}

/** The webhook benchmark runs as its own program (own Temporal dev server, worker and receiver) on this store. */
function runWebhooksBench(dist: string, databaseUrl: string, report: string, runs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(dist, 'bench/webhooks.js'), '--database-url', databaseUrl, '--report', report, '--runs', String(runs)], { env: { ...process.env, NORDPROP_ENV_FILE: '' }, maxBuffer: 64 * 2 ** 20 }, (error, _stdout, stderr) => {
      process.stderr.write(stderr);
      if (error) reject(new Error(`webhook benchmark failed: ${error.message}`));
      else resolve();
    });
  });
}

/** The derived datasets' timings run as their own program on this store, like the API load test. */
function runDeriveBench(dist: string, databaseUrl: string, report: string, runs: number, country: Country | undefined): Promise<void> {
  const args = ['--database-url', databaseUrl, '--report', report, '--runs', String(runs), ...(country ? ['--country', country] : [])];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(dist, 'bench/derive.js'), ...args], { env: { ...process.env, NORDPROP_ENV_FILE: '' }, maxBuffer: 64 * 2 ** 20 }, (error, _stdout, stderr) => {
      process.stderr.write(stderr);
      if (error) reject(new Error(`derive benchmark failed: ${error.message}`));
      else resolve();
    });
  });
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
