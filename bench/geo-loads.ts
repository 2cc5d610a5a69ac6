/**
 * The geometry loads of issue 19 against ogr2ogr, in one run on one file each: no-address,
 * no-cadastre and se-cadastre, each a first load end to end (a forced backfill through one
 * pipeline worker, medians of --runs), with its phases (stage, validate, publish, from the
 * ledger's durations_ms) and the publish's own steps (source_run.details.publishStepsMs),
 * each followed by ogr2ogr on the same file (bench/ogr2ogr.ts). Much shorter than
 * `npm run bench` (no ceilings, registers, nightly, API), for measuring a change to these loads:
 *
 *   node dist/bench/geo-loads.js [--scale 0.05] [--runs 3] [--sources no-address,se-cadastre] [--keep-database]
 *
 * Its own database (nordprop_geo_loads) and work folder (.data/geo-loads), so it can run beside
 * a `npm run bench:check`. Writes the figures as JSON to .data/geo-loads/results-<size>.json.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../lib/config.js';
import { startTemporalServer, type TemporalServer } from '../lib/temporal/dev-server.js';
import { CADASTRE_LAYER } from '../sources/se/cadastre/adapter.js';
import { sourceState } from './build-stamp.js';
import { dropBenchDatabase, recreateDatabase, resetSource } from './database.js';
import { loadAverage } from './machine.js';
import { addressLoad, dropOgrTable, measureOgr, seCadastreLoad, teigLoad, type OgrLoad } from './ogr2ogr.js';
import { parseOptions } from './options.js';
import { connectPipelineClient, runBackfill, type PipelineClient } from './pipeline-run.js';
import { ensureSample, type BenchSample } from './sample-data.js';
import { snapshotBuild } from './snapshot.js';
import { spread } from './stats.js';
import { startWorker, type WorkerProcess } from './worker-process.js';

const DATABASE = 'nordprop_geo_loads';
const TASK_QUEUE = 'geo-loads';
const WORK_DIR = path.join(PROJECT_ROOT, '.data/geo-loads');
const SOURCE_IDS = ['no-address', 'no-cadastre', 'se-cadastre'] as const;
type GeoSource = (typeof SOURCE_IDS)[number];

const log = (line: string) => process.stderr.write(`[geo-loads ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface LoadTiming {
  seconds: number;
  rowsStaged: number;
  phases: Record<string, number>;
  publishSteps: Record<string, number>;
  loadAverage: string;
}

interface SourceFigures {
  sourceId: GeoSource;
  loads: LoadTiming[];
  ogr: Array<{ seconds: number; rows: number; loadAverage: string }>;
  medianSeconds: number;
  ogrMedianSeconds: number;
  /** ogr2ogr's time over nordprop's: above 1, nordprop is faster. */
  ratio: number;
  /** The median of that ratio per pair of loads run one after the other. */
  pairRatio: number;
}

function ogrLoad(sourceId: GeoSource, sample: BenchSample): Promise<OgrLoad> {
  if (sourceId === 'no-address') return addressLoad(DATABASE, sample.address.zipPath, sample.address.entry);
  if (sourceId === 'no-cadastre') return teigLoad(DATABASE, sample.teig.zipPath, sample.teig.entry);
  return seCadastreLoad(DATABASE, sample.sourceFiles['se-cadastre'], CADASTRE_LAYER);
}

function inputOf(sourceId: GeoSource, sample: BenchSample): string {
  if (sourceId === 'no-address') return sample.address.zipPath;
  if (sourceId === 'no-cadastre') return sample.teig.zipPath;
  return sample.sourceFiles['se-cadastre'];
}

const secondsOf = (ms: Record<string, unknown> | null | undefined) =>
  Object.fromEntries(Object.entries(ms ?? {}).map(([k, v]) => [k, Math.round(Number(v)) / 1000]));

const median = (values: number[]) => spread(values).median;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { scale: { type: 'string', default: '0.05' }, runs: { type: 'string', default: '3' }, sources: { type: 'string' }, 'keep-database': { type: 'boolean', default: false } },
    strict: true,
  });
  const size = parseOptions(['--scale', values.scale!]);
  const runs = Number(values.runs);
  const wanted = (values.sources?.split(',') ?? [...SOURCE_IDS]) as GeoSource[];
  const state = await sourceState();
  const sample = await ensureSample(size.sampleDir, size, log);
  await mkdir(WORK_DIR, { recursive: true });
  const databaseUrl = await recreateDatabase(DATABASE);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: 'nordprop-geo-loads' });
  let server: TemporalServer | undefined;
  let pipeline: PipelineClient | undefined;
  let worker: WorkerProcess | undefined;
  try {
    const dataDir = path.join(WORK_DIR, 'data');
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true });
    server = await startTemporalServer(path.join(WORK_DIR, 'temporal.log'));
    pipeline = await connectPipelineClient(server.address);
    const snapshot = await snapshotBuild(WORK_DIR);
    log(`code: commit ${state.commit}${state.uncommitted.length ? ` + uncommitted ${state.uncommitted.join(', ')}` : ''}, build ${snapshot.fingerprint}; load average ${await loadAverage()}`);
    worker = await startWorker({ bin: snapshot.bin, databaseUrl, temporalAddress: server.address, taskQueue: TASK_QUEUE, dataDir, inputDir: sample.dir }, path.join(WORK_DIR, 'worker.log'));
    const figures: SourceFigures[] = [];
    for (const sourceId of wanted) {
      const loads: LoadTiming[] = [];
      const ogr: SourceFigures['ogr'] = [];
      // Each nordprop load followed by an ogr2ogr load of the same file: on a shared machine the
      // two of a pair see about the same load, so their ratio means more than either time.
      for (let i = 1; i <= runs; i++) {
        // A first load each time (live tables emptied, runs forgotten), as in `npm run bench`.
        await resetSource(pool, sourceId);
        const run = await runBackfill(pipeline, pool, TASK_QUEUE, sourceId, inputOf(sourceId, sample));
        const entry = run.ledger[sourceId];
        const steps = await pool.query<{ steps: Record<string, unknown> | null }>(
          `SELECT details->'publishStepsMs' AS steps FROM source_run WHERE run_id = $1 AND source_id = $2`,
          [run.runId, sourceId],
        );
        const timing: LoadTiming = { seconds: run.seconds, rowsStaged: entry.rowsStaged, phases: secondsOf(entry.durationsMs), publishSteps: secondsOf(steps.rows[0]?.steps), loadAverage: await loadAverage() };
        loads.push(timing);
        log(`${sourceId} run ${i}: ${timing.seconds.toFixed(1)} s, ${timing.rowsStaged} rows, phases ${JSON.stringify(timing.phases)}, publish steps ${JSON.stringify(timing.publishSteps)}, load ${timing.loadAverage}`);
        const load = await ogrLoad(sourceId, sample);
        try {
          const m = await measureOgr(pool, load);
          ogr.push({ seconds: m.seconds, rows: m.rows, loadAverage: await loadAverage() });
          log(`ogr2ogr ${load.label} run ${i}: ${m.seconds.toFixed(1)} s, ${m.rows} rows, load ${ogr.at(-1)!.loadAverage}; ratio of the pair ${(m.seconds / timing.seconds).toFixed(2)}x`);
        } finally {
          await dropOgrTable(pool, load);
          await load.dispose();
        }
      }
      const medianSeconds = median(loads.map((l) => l.seconds));
      const ogrMedianSeconds = median(ogr.map((o) => o.seconds));
      const pairRatio = median(loads.map((l, i) => ogr[i].seconds / l.seconds));
      figures.push({ sourceId, loads, ogr, medianSeconds, ogrMedianSeconds, ratio: ogrMedianSeconds / medianSeconds, pairRatio });
    }
    const out = path.join(WORK_DIR, `results-${size.sizeLabel}.json`);
    await writeFile(out, `${JSON.stringify({ commit: state.commit, uncommitted: state.uncommitted, build: snapshot.fingerprint, figures }, null, 2)}\n`);
    for (const f of figures) {
      const phase = (name: string) => median(f.loads.map((l) => l.phases[name] ?? 0)).toFixed(1);
      const stepNames = [...new Set(f.loads.flatMap((l) => Object.keys(l.publishSteps)))];
      const steps = stepNames.map((s) => `${s} ${median(f.loads.map((l) => l.publishSteps[s] ?? 0)).toFixed(1)}`).join(', ');
      console.log(`${f.sourceId}: nordprop ${f.medianSeconds.toFixed(1)} s (stage ${phase('stage')}, validate ${phase('validate')}, publish ${phase('publish')} [${steps}]), ogr2ogr ${f.ogrMedianSeconds.toFixed(1)} s, ratio of medians ${f.ratio.toFixed(2)}×, median ratio of pairs ${f.pairRatio.toFixed(2)}×`);
    }
    log(`figures in ${path.relative(PROJECT_ROOT, out)}; load average ${await loadAverage()}`);
  } finally {
    await worker?.stop().catch(() => undefined);
    await pipeline?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await pool.end();
    if (values['keep-database']) log(`database ${DATABASE} left in place (--keep-database)`);
    else await dropBenchDatabase(DATABASE).catch((error) => log(`could not drop ${DATABASE}: ${(error as Error).message}`));
  }
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
