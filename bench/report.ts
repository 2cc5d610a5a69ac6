import path from 'node:path';
import { PROJECT_ROOT } from '../lib/config.js';
import type { CeilingShape } from './copy-ceiling.js';
import type { BenchResults, LoadRun, SourceResult } from './results.js';
import { rate, spread, type Spread } from './stats.js';
import { findings } from './findings.js';
import { describeStatement } from './publish-breakdown.js';
import { WORKER_MEMORY_LIMIT_BYTES, evaluateTargets, footprint, workerPeaks } from './targets.js';
import type { MemoryPeak } from './worker-process.js';
import { describeSampleSize, type BenchSample } from './sample-data.js';
import { serverUptime } from './machine.js';

/** BENCHMARKS.md and the short stdout summary, rendered from the measured results only. */

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** The generator call that made the sample, as the report shows it. */
function sampleCall(sample: BenchSample): string {
  return sample.profile === 'national' ? `\`generateSample({ profile: 'national', scale: ${sample.scale}, seed: 'bench' })\`` : `\`generateSample({ parcels: ${int(sample.parcels)}, seed: 'bench' })\``;
}
const secs = (s: number) => (s < 10 ? s.toFixed(2) : s.toFixed(1));
const mib = (bytes: number) => `${int(bytes / 2 ** 20)} MiB`;
const size = (bytes: number) => (bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${int(bytes / 1024)} KiB`);
const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)} %`;
const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? '**met**' : '**not met**');

/** ` (min–max)` when there was more than one run, else nothing. */
const range = (s: Spread, fmt: (n: number) => string) => (s.values.length > 1 ? ` (${fmt(s.min)}–${fmt(s.max)})` : '');

interface Row {
  label: string;
  seconds: Spread;
  rows: number;
  rates: Spread;
}

function loadRow(label: string, runs: { seconds: number; rows: number }[]): Row {
  return {
    label,
    seconds: spread(runs.map((r) => r.seconds)),
    rows: runs[0]?.rows ?? 0,
    rates: spread(runs.map((r) => rate(r.rows, r.seconds))),
  };
}

const SHAPE_LABEL: Record<CeilingShape, string> = {
  indexed: 'raw COPY into a table with the live indexes (ceiling)',
  bare: 'raw COPY into a table with no indexes',
  'bare-then-index': 'raw COPY with no indexes, then the same indexes built',
};

function comparisonTable(source: SourceResult): { lines: string[]; nordprop: Row; rows: Row[] } {
  const nordprop = loadRow('**nordprop end to end** (backfill workflow, real worker)', source.loads.map((l) => ({ seconds: l.seconds, rows: l.rowsStaged })));
  const rows: Row[] = [nordprop];
  for (const shape of ['indexed', 'bare', 'bare-then-index'] as CeilingShape[]) {
    rows.push(loadRow(SHAPE_LABEL[shape], source.ceiling[shape].map((m) => ({ seconds: m.seconds, rows: m.rows }))));
  }
  if ('runs' in source.ogr) {
    rows.push(loadRow(`ogr2ogr, ${source.ogr.label} → PostGIS (reprojected, GiST)`, source.ogr.runs.map((m) => ({ seconds: m.seconds, rows: m.rows }))));
  }
  const lines = [
    '| load | rows | seconds, median (min–max) | rows/s, median (min–max) | nordprop speed relative to it |',
    '|---|---:|---:|---:|---:|',
    ...rows.map((row) => {
      const relative = row === nordprop ? '1.00×' : `${(nordprop.rates.median / row.rates.median).toFixed(2)}×`;
      return `| ${row.label} | ${int(row.rows)} | ${secs(row.seconds.median)}${range(row.seconds, secs)} | ${int(row.rates.median)}${range(row.rates, int)} | ${relative} |`;
    }),
  ];
  return { lines, nordprop, rows };
}

const PHASES = ['download', 'stage', 'validate', 'publish'];
const PHASE_WHAT: Record<string, string> = {
  download: 'sha256 of the input file (a local file: no transfer)',
  stage: 'unzip ▸ parse ▸ normalize ▸ reproject ▸ COPY into the UNLOGGED staging table',
  validate: 'duplicate-key quarantine, geometry repair (parcels), ANALYZE, counts',
  publish: 'one transaction: merge staging into the live tables',
};

function phaseTable(loads: LoadRun[], rows: number): string[] {
  const total = spread(loads.map((l) => l.seconds));
  const lines = ['| phase | what it does | seconds, median (min–max) | share of end to end | rows/s through the phase |', '|---|---|---:|---:|---:|'];
  for (const phase of PHASES) {
    const values = loads.map((l) => (l.phasesMs[phase] ?? 0) / 1000);
    const s = spread(values);
    lines.push(`| ${phase} | ${PHASE_WHAT[phase]} | ${secs(s.median)}${range(s, secs)} | ${pct(s.median / total.median)} | ${s.median > 0 ? int(rows / s.median) : '–'} |`);
  }
  const overhead = spread(loads.map((l) => l.seconds - PHASES.reduce((sum, p) => sum + (l.phasesMs[p] ?? 0) / 1000, 0)));
  lines.push(`| other | Temporal scheduling and hand-offs between activities, ledger activities, the publish COMMIT, dropping the staging table | ${secs(overhead.median)}${range(overhead, secs)} | ${pct(overhead.median / total.median)} | – |`);
  return lines;
}

function stageSteps(source: SourceResult): string[] {
  if (!source.stage.length) return [];
  const stage = spread(source.loads.map((l) => (l.phasesMs.stage ?? 0) / 1000)).median;
  const rows = source.loads[0]?.rowsStaged ?? 0;
  const lines = [
    'Inside the stage phase: the same zip read in the benchmark process (no Temporal, no database) by ever longer prefixes of the stage pipeline, one pass each:',
    '',
    '| step | seconds (cumulative) | added by this step | rows/s up to here |',
    '|---|---:|---:|---:|',
  ];
  let previous = 0;
  for (const level of source.stage) {
    lines.push(`| ${level.label} | ${secs(level.seconds)} | ${level.seconds >= previous ? secs(level.seconds - previous) : '– (within the noise of one pass)'} | ${level.records ? int(rate(level.records, level.seconds)) : '–'} |`);
    previous = level.seconds;
  }
  lines.push(
    `| stage phase in the pipeline (median above): the above + COPY into staging over the network, backpressure and the stage activity's own work | ${secs(stage)} | ${stage >= previous ? secs(stage - previous) : '–'} | ${int(rate(rows, stage))} |`,
    '',
  );
  if (stage < previous) {
    lines.push(
      `The single standalone pass took longer than the pipeline's median stage phase (${secs(previous)} s vs ${secs(stage)} s): the stage is bound by the worker's JavaScript, and the COPY into staging runs alongside it (PostgreSQL parses the COPY stream on the other core).`,
      '',
    );
  }
  return lines;
}

function publishSteps(source: SourceResult): string[] {
  const p = source.publish;
  if (!p) return ['The publish phase is not replayed statement by statement for this source (the benchmark has no plan to put its published rows back into its staging shape).', ''];
  const publish = spread(source.loads.map((l) => (l.phasesMs.publish ?? 0) / 1000)).median;
  const row = (t: { statement: string; seconds: number; rows: number | null }) => `| ${describeStatement(t.statement.replace('<its published rows>', 'a copy of its published rows'))} | ${secs(t.seconds)} | ${t.rows === null ? '–' : int(t.rows)} |`;
  return [
    `Inside the publish phase: the ${int(p.rows)} published rows put back into a staging table, the live tables emptied, and the adapter's own \`publish()\` run on them in one transaction, each statement timed (one pass; the pipeline's publish phase above took ${secs(publish)} s, median):`,
    '',
    '| statement | seconds | rows |',
    '|---|---:|---:|',
    ...p.firstLoad.map(row),
    `| **total, first load into empty live tables** | **${secs(p.firstLoadSeconds)}** | |`,
    '',
    'For comparison, on the same staging table:',
    '',
    '| statement | seconds | rows |',
    '|---|---:|---:|',
    ...p.plainInsert.map(row),
    `| **plain INSERT … SELECT into the empty indexed live table(s), total** | **${secs(p.plainInsertSeconds)}** | |`,
    `| **publish() again with the same snapshot (every row unchanged), total** | **${secs(p.unchangedSeconds)}** | |`,
    '',
  ];
}

function cpuLine(loads: { seconds: number; memory: MemoryPeak }[]): string {
  const cpu = spread(loads.map((l) => l.memory.cpuSeconds));
  const share = spread(loads.map((l) => l.memory.cpuSeconds / l.seconds));
  return `Worker CPU time per run (user + system, from \`/proc/<pid>/stat\`, start-up excluded): median ${secs(cpu.median)} s${range(cpu, secs)}, ${pct(share.median)} of the wall-clock time (the rest the worker waits, for PostgreSQL or Temporal, or for a core).`;
}

function memoryLine(loads: { memory: MemoryPeak }[]): string {
  const peak = spread(loads.map((l) => footprint(l.memory)));
  const hwm = spread(loads.map((l) => l.memory.peakBytes));
  const tree = spread(loads.map((l) => l.memory.sampledTreeRssBytes));
  const ready = spread(loads.map((l) => l.memory.readyBytes));
  const processes = Math.max(...loads.map((l) => l.memory.processes));
  return (
    `Peak worker memory (a fresh worker per run): median ${mib(peak.median)}, max ${mib(peak.max)} ` +
    `(largest VmHWM in the worker's process tree: median ${mib(hwm.median)}; summed VmRSS of the tree${processes > 1 ? `, ${processes} processes as \`bin/nordprop.js\` re-execs node for the worker` : ''}, sampled every 250 ms: median ${mib(tree.median)}). ` +
    `Already reached at start-up, after bundling the workflow code and before any work: median ${mib(ready.median)}.`
  );
}

function sourceSection(source: SourceResult, results: BenchResults): string[] {
  const { lines, nordprop } = comparisonTable(source);
  const first = source.loads[0];
  const out = [
    `## ${source.title} (\`${source.sourceId}\`)`,
    '',
    (source.input.zipped
      ? `Input: \`${path.basename(source.input.zipPath)}\`, ${size(source.input.zipBytes)} zipped, ${size(source.input.entryBytes)} unzipped (\`${source.input.entry}\`). `
      : `Input: \`${source.input.entry}\`, ${size(source.input.entryBytes)}. `) +
      `Each run read ${int(first.rowsRead)} ${source.unit} rows, staged ${int(first.rowsStaged)}, rejected ${int(first.rowsRejected)}` +
      `${first.rowsRepaired ? `, repaired ${int(first.rowsRepaired)}` : ''}; ${int(source.publishedRows)} rows in \`${source.table}\` after publishing.`,
    '',
    ...lines,
    '',
    `Ratios: nordprop end to end reaches ${pct(nordprop.rates.median / spread(source.ceiling.indexed.map((m) => rate(m.rows, m.seconds))).median)} of the raw-COPY ceiling (same rows, same indexes) and ${pct(nordprop.rates.median / spread(source.ceiling.bare.map((m) => rate(m.rows, m.seconds))).median)} of a COPY into an unindexed table.` +
      ('runs' in source.ogr
        ? ` Against ogr2ogr on the same file it is ${(spread(source.ogr.runs.map((m) => m.seconds)).median / nordprop.seconds.median).toFixed(2)}× as fast (${secs(nordprop.seconds.median)} s vs ${secs(spread(source.ogr.runs.map((m) => m.seconds)).median)} s).`
        : ` ogr2ogr: ${source.ogr.skipped}.`),
    '',
    `Where the end-to-end time goes (median of ${results.runs} runs, from \`source_run.durations_ms\`):`,
    '',
    ...phaseTable(source.loads, first.rowsStaged),
    '',
    ...stageSteps(source),
    ...publishSteps(source),
    cpuLine(source.loads),
    '',
    memoryLine(source.loads),
    '',
  ];
  const ogr = source.ogr;
  if ('runs' in ogr) {
    const bad = ogr.runs.filter((r) => r.rows !== ogr.expectedRows || r.rowsWithExpectedGeometry !== r.rows);
    out.push(
      `ogr2ogr check: ${ogr.runs.map((r) => `${int(r.rows)} rows (${int(r.rowsWithExpectedGeometry)} with the expected geometry type)`).join(', ')}; expected ${int(ogr.expectedRows)}` +
        `${bad.length ? ' — **MISMATCH**, see the per-run figures' : ' — every run loaded every row with the right geometry type'}.`,
      '',
    );
  }
  return out;
}

const SOURCE_TABLE_HEAD = ['| source | country | input | rows read | staged | rejected | seconds, median (min–max) | rows/s | worker peak |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];

function sourceRow(sourceId: string, country: string, inputBytes: number, loads: LoadRun[]): string {
  const seconds = spread(loads.map((l) => l.seconds));
  const rates = spread(loads.map((l) => rate(l.rowsStaged, l.seconds)));
  const peak = spread(loads.map((l) => footprint(l.memory)));
  const first = loads[0];
  return `| \`${sourceId}\` | ${country} | ${size(inputBytes)} | ${int(first.rowsRead)} | ${int(first.rowsStaged)} | ${int(first.rowsRejected)} | ${secs(seconds.median)}${range(seconds, secs)} | ${int(rates.median)} | ${mib(peak.max)} |`;
}

function registersSection(results: BenchResults): string[] {
  if (!results.registers.length) return [];
  return [
    '## Every other register, end to end',
    '',
    `Each source's sample file backfilled through a fresh worker (download → stage → validate → publish), ${results.runs} run(s) each, the source's rows of its country deleted before each run so every run is a first load. Rows are the records the parser read (one per building, company, certificate, …); rows/s are staged rows over the end-to-end wall-clock time; memory is the worker's peak (max over runs).`,
    '',
    ...SOURCE_TABLE_HEAD,
    ...results.registers.map((r) => sourceRow(r.sourceId, r.country, r.inputBytes, r.loads)),
    '',
  ];
}

/** The nightly run on unchanged inputs against a full load: every source's end-to-end median, one after the other. */
function nightlyFigures(results: BenchResults) {
  const medianSeconds = (loads: LoadRun[]) => spread(loads.map((l) => l.seconds)).median;
  return {
    nightly: spread(results.nightly.map((n) => n.seconds)),
    fullLoad: results.compared.reduce((sum, c) => sum + medianSeconds(c.loads), 0) + results.registers.reduce((sum, r) => sum + medianSeconds(r.loads), 0),
    sources: results.nightly[0] ? Object.keys(results.nightly[0].outcomes).length : 0,
    outcomes: [...new Set(results.nightly.flatMap((n) => Object.entries(n.outcomes).map(([s, o]) => `${s}: ${o}`)))].join(', '),
  };
}

function nightlySection(results: BenchResults): string[] {
  if (!results.nightly.length) return [];
  const { nightly, fullLoad, sources, outcomes } = nightlyFigures(results);
  const download = spread(results.nightly.map((n) => Math.max(...Object.values(n.phasesMs).map((p) => p.download ?? 0)) / 1000));
  return [
    '## Nightly refresh on unchanged inputs',
    '',
    `After every source is published, the \`nightlyRefresh\` workflow (not forced) runs all ${sources} sources over the same files (\`NORDPROP_INPUT_DIR\` = the sample folder). Each source hashes its input (or asks its updates feed for changes), finds nothing new and stops there.`,
    '',
    '| measurement | seconds, median (min–max) | fraction of a full load |',
    '|---|---:|---:|',
    `| nightly refresh, all ${sources} sources, inputs unchanged | ${secs(nightly.median)}${range(nightly, secs)} | ${pct(nightly.median / fullLoad)} |`,
    `| full load: every source's end-to-end median, one after the other | ${secs(fullLoad)} | 100 % |`,
    '',
    `Outcomes: ${outcomes}. Hashing the largest input (download phase) took ${secs(download.median)} s (median). ${memoryLine(results.nightly)}`,
    '',
  ];
}

const COUNTRY_NAME: Record<string, string> = { NO: 'Norway', SE: 'Sweden' };
const COUNTRY_ADJECTIVE: Record<string, string> = { NO: 'Norwegian', SE: 'Swedish' };

/**
 * What a one-country run puts into BENCHMARKS.md: every source of the country end to end and
 * the nightly run on unchanged inputs, pointing to the run's full report for the rest.
 */
export function renderCountrySection(results: BenchResults, reportName: string): string {
  const country = results.country ?? '';
  const marker = `national-${country}`;
  const { nightly, fullLoad, outcomes } = nightlyFigures(results);
  const peaks = spread(workerPeaks(results));
  const load = results.loadSamples.length ? `; 1-minute load average during the run median ${spread(results.loadSamples).median.toFixed(1)}, max ${spread(results.loadSamples).max.toFixed(1)} on ${results.machine.cores} cores` : '';
  return [
    `<!-- ${marker}:start -->`,
    `## ${COUNTRY_NAME[country] ?? country}: every source end to end, ${describeSampleSize(results.sample)}`,
    '',
    `Made by \`npm run bench -- --country ${country}\` on ${results.startedAt.slice(0, 10)}, ${results.startedAt.slice(11, 16)}–${results.finishedAt.slice(11, 16)} UTC, commit \`${results.source.commit}\`, ${results.runs} run(s) of each load${load}. ` +
      `Each source backfilled from its sample file through a fresh worker, every run a first load; rows/s are staged rows over the end-to-end time; worker peak is the largest footprint of the worker process tree. ` +
      `The full report, with the raw-COPY ceiling, ogr2ogr and the phase breakdowns: [${reportName}](${reportName}).`,
    '',
    ...SOURCE_TABLE_HEAD,
    ...results.compared.map((c) => sourceRow(c.sourceId, country, c.input.zipBytes, c.loads)),
    ...results.registers.map((r) => sourceRow(r.sourceId, r.country, r.inputBytes, r.loads)),
    '',
    results.nightly.length
      ? `Nightly refresh of the ${COUNTRY_ADJECTIVE[country] ?? country} sources on unchanged inputs: ${secs(nightly.median)} s against ${secs(fullLoad)} s for the full load (${pct(nightly.median / fullLoad)}); outcomes ${outcomes}.`
      : 'The nightly refresh on unchanged inputs was not measured.',
    `Worker peak memory over all ${peaks.values.length} measured worker runs: median ${mib(peaks.median)}, max ${mib(peaks.max)} (target under 1 GiB: ${verdict(peaks.max < WORKER_MEMORY_LIMIT_BYTES)}).`,
    `<!-- ${marker}:end -->`,
    '',
  ].join('\n');
}

function perRunAppendix(results: BenchResults): string[] {
  const lines = [
    '## Per-run figures',
    '',
    '| measurement | run | seconds | rows | rows/s | phases (s): download / stage / validate / publish | worker CPU s | worker peak memory |',
    '|---|---:|---:|---:|---:|---|---:|---:|',
  ];
  const phaseText = (p: Record<string, number>) => PHASES.map((ph) => ((p[ph] ?? 0) / 1000).toFixed(1)).join(' / ');
  for (const source of results.compared) {
    source.loads.forEach((l, i) =>
      lines.push(`| ${source.sourceId} end to end | ${i + 1} | ${secs(l.seconds)} | ${int(l.rowsStaged)} | ${int(rate(l.rowsStaged, l.seconds))} | ${phaseText(l.phasesMs)} | ${secs(l.memory.cpuSeconds)} | ${mib(footprint(l.memory))} |`),
    );
    for (const shape of ['indexed', 'bare', 'bare-then-index'] as CeilingShape[]) {
      source.ceiling[shape].forEach((m, i) =>
        lines.push(
          `| COPY ${source.table}, ${shape} | ${i + 1} | ${secs(m.seconds)}${m.indexBuilds.length ? ` (COPY ${secs(m.copySeconds)} + ${m.indexBuilds.map((b) => `${b.index} ${secs(b.seconds)}`).join(' + ')})` : ''} | ${int(m.rows)} | ${int(rate(m.rows, m.seconds))} | – | – | – |`,
        ),
      );
    }
    const ogr = source.ogr;
    if ('runs' in ogr) {
      ogr.runs.forEach((m, i) => lines.push(`| ogr2ogr ${ogr.label} | ${i + 1} | ${secs(m.seconds)} | ${int(m.rows)} | ${int(rate(m.rows, m.seconds))} | – | – | – |`));
    }
  }
  results.nightly.forEach((n, i) =>
    lines.push(`| nightly, unchanged | ${i + 1} | ${secs(n.seconds)} | – | – | ${Object.entries(n.outcomes).map(([s, o]) => `${s} ${o}`).join(', ')} | ${secs(n.memory.cpuSeconds)} | ${mib(footprint(n.memory))} |`),
  );
  return [...lines, ''];
}

function commandsSection(results: BenchResults): string[] {
  const show = (command: string[]) =>
    command
      .map((arg) => arg.replace(/^GFS_TEMPLATE=.*$/, 'GFS_TEMPLATE=teig.gfs'))
      .map((arg) => (/[\s"]/.test(arg) ? `'${arg}'` : arg))
      .join(' ')
      .replaceAll(PROJECT_ROOT + '/', '');
  const out = ['## ogr2ogr command lines', ''];
  for (const source of results.compared) {
    if ('runs' in source.ogr) out.push('```sh', `PG_USE_COPY=YES ${show(source.ogr.command)}`, '```', '');
  }
  if (out.length === 2) return [];
  if (!results.compared.some((c) => c.sourceId === 'no-cadastre')) {
    out.push('The GeoPackage names its CRS (EPSG:3006) and geometry column itself, so ogr2ogr reads it without hints; `-nlt PROMOTE_TO_MULTI` gives every area the same geometry type.', '');
    return out;
  }
  out.push(
    'The Teig GML carries two geometries per feature (`område`, the polygon, and `representasjonspunkt`, a point). Without a schema, GDAL 3.6\'s GML reader keeps only the point and types `kommunenummer` as an integer (`0301` → `301`); the GFS template passed with `-oo GFS_TEMPLATE=` (written by `bench/ogr2ogr.ts`) names `område` as the geometry and the columns with their types, and spares GDAL its schema-discovery pass over the file. The zip is read in place through `/vsizip/` (nothing is unpacked). GDAL 3.6\'s CSV driver has no `SEPARATOR` open option; it detects the `;` itself, and the CRS is given with `-s_srs` (with `-a_srs` alone ogr2ogr refuses to reproject a layer that has no CRS).',
    '',
  );
  return out;
}

function codeSection(results: BenchResults): string[] {
  const builds = new Map<string, string[]>();
  const note = (build: string, label: string) => builds.set(build, [...(builds.get(build) ?? []), label]);
  for (const source of results.compared) source.loads.forEach((l, i) => note(l.build, `${source.sourceId} run ${i + 1}`));
  results.nightly.forEach((n, i) => note(n.build, `nightly run ${i + 1}`));
  const { commit, uncommitted } = results.source;
  const lines = [
    '## Measured code',
    '',
    `Commit \`${commit}\`${uncommitted.length ? ` with uncommitted changes (work in progress at the time of the run) in ${uncommitted.map((f) => `\`${f}\``).join(', ')}` : ', no uncommitted changes in the pipeline'}.`,
  ];
  if (builds.size === 1) {
    lines.push(
      `The workers and the breakdowns ran a copy of \`bin/\` and \`dist/\` taken when the benchmark started (\`dist/\` fingerprint \`${[...builds.keys()][0]}\`), ` +
        'so a rebuild of `dist/` during the run cannot mix two versions of the pipeline into one report.',
    );
  } else {
    lines.push(
      `**Warning: \`dist/\` was rebuilt during the run** (someone else's build), so not every worker ran the same code: ` +
        [...builds.entries()].map(([b, runs]) => `\`${b}\` for ${runs.join(', ')}`).join('; ') + '.',
    );
  }
  return [...lines, ''];
}

export function renderReport(results: BenchResults): string {
  const m = results.machine;
  const peaks = spread(workerPeaks(results));
  const targets = evaluateTargets(results);
  const settings = Object.entries(m.postgresSettings).map(([k, v]) => `${k}=${v}`).join(', ');
  return [
    '# Benchmarks',
    '',
    ...(results.country ? [`**${COUNTRY_NAME[results.country]} only** (\`--country ${results.country}\`): only this country's sources were loaded and measured; the other country's figures are in its own report (\`BENCHMARKS.md\` for both, \`BENCHMARKS-NO.md\` / \`BENCHMARKS-SE.md\` for one).`, ''] : []),
    `Produced by \`npm run bench\` (\`scripts/bench.sh\` → \`bench/run.ts\`, compiled to \`dist/\`) on ${results.startedAt.slice(0, 10)}, in one run from ${results.startedAt.slice(11, 16)} to ${results.finishedAt.slice(11, 16)} UTC. ` +
      `Every figure below was measured in that run, side by side on the same machine; each measurement was repeated ${results.runs}× and the median is shown with the min–max range. Regenerate with \`npm run bench${results.country ? ` -- --country ${results.country}` : ''}\` (this run took ${Math.round((Date.parse(results.finishedAt) - Date.parse(results.startedAt)) / 60000)} minutes; \`npm run bench -- --scale 0.01 --runs 1\` is a proportional run and \`npm run bench -- --parcels 3000 --runs 1\` a one-minute smoke run, both written to \`.data/bench/\` instead).`,
    '',
    '## Targets',
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${verdict(t.met)} |`),
    '',
    '## What the figures say',
    '',
    ...findings(results).map((line) => `- ${line}`),
    '',
    '## Machine',
    '',
    '| | |',
    '|---|---|',
    `| CPU | ${m.cpuModel}, ${m.cores} cores |`,
    `| memory | ${m.memoryGiB.toFixed(1)} GiB |`,
    `| OS | ${m.os} (${m.kernel}) |`,
    `| Node.js | ${m.node} |`,
    `| PostgreSQL | ${m.postgres}, on the same machine (127.0.0.1)${m.serverUpSeconds === undefined ? '' : `, ${serverUptime(m.serverUpSeconds)} when the run began`}, server settings as installed: ${settings} |`,
    `| PostGIS | ${m.postgis} |`,
    `| GDAL | ${m.gdal} |`,
    `| Temporal | dev server (Temporal CLI \`server start-dev\`, in memory), one worker process (\`node bin/nordprop.js worker\`) |`,
    `| load average (1/5/15 min) | before: ${results.loadAverageBefore}; after: ${results.loadAverageAfter} |`,
    ...(results.loadSamples.length
      ? [`| 1-min load average during the run (every 5 s) | median ${spread(results.loadSamples).median.toFixed(1)}, max ${spread(results.loadSamples).max.toFixed(1)}, over ${results.loadSamples.length} samples; above 2 there was more runnable work than the two cores, i.e. processes waited for a CPU |`]
      : []),
    '',
    ...codeSection(results),
    '## Data',
    '',
    `The deterministic sample registers at ${describeSampleSize(results.sample)} (${sampleCall(results.sample)}, in \`.data/bench/\`; see docs/sample-profiles.md): ` +
      `${int(results.sample.addresses)} Norwegian addresses and ${int(results.sample.parcels)} parcels in the real Kartverket formats, ${int(results.sample.seProperties ?? results.sample.parcels)} Swedish properties, every other register at its own size (rows per file in the sample's sample-manifest.json).`,
    '',
    '| file | zipped | unzipped | rows |',
    '|---|---:|---:|---:|',
    ...results.compared.flatMap((c) => [
      `| \`${path.basename(c.input.zipPath)}\` | ${c.input.zipped ? size(c.input.zipBytes) : '– (not zipped)'} | ${size(c.input.entryBytes)} | ${int(c.loads[0]?.rowsRead ?? 0)} ${c.unit} rows |`,
      `| COPY text dump of \`${c.table}\` (ceiling input) | – | ${size(c.dumpBytes)} | ${int(c.publishedRows)} |`,
    ]),
    '',
    ...results.compared.flatMap((c) => sourceSection(c, results)),
    ...registersSection(results),
    ...nightlySection(results),
    '## How it is measured',
    '',
    '- **nordprop end to end**: a `backfill` workflow (`{ sourceId, input: <sample zip>, force: true }`) started with `@temporalio/client` on the benchmark\'s own task queue and timed from the start request until its result arrives. Before each run the source\'s live tables are emptied (`TRUNCATE`), its ledger rows deleted, and a `CHECKPOINT` taken, so every run is a first load that inserts every row. rows/s = rows staged ÷ seconds. The parcel load also publishes the parcels\' links to their units (`parcel_property`); the ceiling and ogr2ogr load the parcel table only.',
    '- **worker**: a fresh `node bin/nordprop.js worker` process per measured run (run from the benchmark\'s frozen copy of `bin/` and `dist/`), with `DATABASE_URL`, `TEMPORAL_ADDRESS`, `NORDPROP_TASK_QUEUE=bench`, `NORDPROP_DATA_DIR=.data/bench/data`, `NORDPROP_INPUT_DIR` = the sample folder and `NORDPROP_ENV_FILE=` (the machine\'s `.env` is ignored; every other setting at its default). Its peak memory is the largest `VmHWM` (from `/proc/<pid>/status`, read when the run has finished) among the worker\'s processes, or the summed `VmRSS` of its process tree sampled every 250 ms if that was larger.',
    `- **Temporal**: the benchmark\'s own dev server on a free port, in memory, stopped at the end; database \`nordprop_bench\`, dropped and re-created and migrated at the start, dropped at the end.`,
    '- **raw COPY ceiling**: after the last load, the published table is written out with a server-side `COPY (SELECT * FROM <table>) TO <file>`, then timed loading back with a server-side `COPY <copy> FROM <file>` into `CREATE TABLE … (LIKE <table> INCLUDING ALL)` (the same indexes the publish writes into; they are named in the per-run figures), into `(LIKE <table> INCLUDING DEFAULTS)` (no index), and into the latter with the live table\'s indexes built afterwards. No parsing, no reprojection, no network, no merge: the fastest PostgreSQL can take these rows on this machine.',
    '- **ogr2ogr**: GDAL loading the same zip into PostGIS, reprojected to EPSG:4326, `PG_USE_COPY=YES`, GiST index built, timed as a process; its row count and geometry types are checked after each run.',
    `- **every other register**: the same backfill per source from its sample file, registry order (a source that reads another's publish runs after it); before each run the source's rows of its country are deleted from the tables its last publish named.`,
    `- **nightly**: the \`nightlyRefresh\` workflow over every source, not forced, timed like the loads; the fraction is against the sum of every source's end-to-end median.`,
    '- Other work on the machine during the run (see the load averages) adds noise; PostgreSQL runs on the same two cores as the worker and ogr2ogr.',
    '',
    ...commandsSection(results),
    ...perRunAppendix(results),
    `Worker peak memory over all ${peaks.values.length} measured worker runs: median ${mib(peaks.median)}, max ${mib(peaks.max)}.`,
    '',
  ].join('\n');
}

export function renderSummary(results: BenchResults, reportPath: string): string {
  const line = (source: SourceResult) => {
    const r = spread(source.loads.map((l) => rate(l.rowsStaged, l.seconds)));
    const s = spread(source.loads.map((l) => l.seconds));
    const c = spread(source.ceiling.indexed.map((m) => rate(m.rows, m.seconds)));
    const ogr = 'runs' in source.ogr ? `, ogr2ogr ${secs(spread(source.ogr.runs.map((m) => m.seconds)).median)} s` : '';
    return `  ${source.sourceId.padEnd(12)} ${secs(s.median)} s, ${int(r.median)} rows/s (COPY ceiling ${int(c.median)} rows/s${ogr})`;
  };
  const out = ['', `nordprop benchmark (${results.runs} run(s) each, medians):`, ...results.compared.map(line)];
  if (results.nightly.length) out.push(`  nightly unchanged ${secs(spread(results.nightly.map((n) => n.seconds)).median)} s`);
  for (const t of evaluateTargets(results)) out.push(`  [${t.met === null ? ' ? ' : t.met ? 'met' : 'NOT'}] ${t.target}: ${t.measured}`);
  out.push(`report: ${path.relative(process.cwd(), reportPath) || reportPath}`, '');
  return out.join('\n');
}
