/**
 * Derived datasets benchmark: each dataset's run time per country on an already loaded store
 * (what `npm run bench` loaded, or the demo's), through the same activity the derive workflow
 * runs: compute into staging, merge, ledger. Per dataset and country, the median of `--runs`:
 * a first computation into an empty live table, and a re-run on unchanged inputs (which must
 * change nothing). `npm run bench` runs it after the loads (`--skip-derive` leaves it out):
 *
 *   npm run build && node dist/bench/derive.js --database-url postgres://…/nordprop_bench [--runs 3] [--report FILE] [--dataset ID ...]
 *
 * It adds (or replaces) its section in the report; without `--report` it prints it.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SourceRunSummary } from '../activities/types.js';
import { deriveDataset, planDerive } from '../activities/derive.js';
import { closePools, getPool } from '../lib/db.js';
import { selectDatasets } from '../derive/registry.js';
import { COUNTRIES as ALL_COUNTRIES, type Country } from '../lib/domain/country.js';
import { spread, timed, type Spread } from './stats.js';
import { countryOption } from './options.js';
import { replaceSection } from './report-section.js';

const log = (line: string) => process.stderr.write(`[derive-bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const { values: options } = parseArgs({
  options: {
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/nordprop' },
    runs: { type: 'string', default: '3' },
    report: { type: 'string' },
    'as-of': { type: 'string', default: new Date().toISOString().slice(0, 10) },
    /** Only these datasets (repeatable); all by default. */
    dataset: { type: 'string', multiple: true },
    /** Only this country (NO or SE); both by default. */
    country: { type: 'string' },
  },
});
// The activity reads the store through the configured pool.
process.env.DATABASE_URL = options['database-url'];

interface DatasetResult {
  datasetId: string;
  country: Country;
  first: Spread;
  rerun: Spread;
  rowsRead: number;
  rows: number;
  rerunChanges: number;
}

const onlyCountry = countryOption(options.country);
const COUNTRIES: readonly Country[] = onlyCountry ? [onlyCountry] : ALL_COUNTRIES;

async function derive(datasetId: string, country: Country, label: string): Promise<{ seconds: number; summary: SourceRunSummary }> {
  const runId = `bench-${label}-${Date.now().toString(36)}`;
  await planDerive({ runId, workflowId: 'bench/derive.ts', countries: [country], datasets: [datasetId] });
  const { seconds, result } = await timed(() => deriveDataset({ runId, datasetId: datasetId as never, country, asOf: options['as-of']! }));
  if (result.outcome !== 'published') throw new Error(`${datasetId} ${country}: ${result.outcome} ${result.error ?? ''}`);
  return { seconds, summary: result };
}

/**
 * The derive step of a nightly refresh on the inputs just computed: every dataset of both
 * countries through the activity as the nightly calls it (skipUnchanged), which must skip them all.
 */
async function skippedNight(): Promise<number> {
  const runId = `bench-night-${Date.now().toString(36)}`;
  const planned = await planDerive({ runId, workflowId: 'bench/derive.ts', countries: COUNTRIES, datasets: options.dataset });
  const { seconds } = await timed(async () => {
    for (const step of planned) {
      const result = await deriveDataset({ runId, datasetId: step.datasetId, country: step.country, asOf: options['as-of']!, skipUnchanged: true });
      if (result.outcome !== 'unchanged') throw new Error(`${step.ledgerId} on unchanged inputs: ${result.outcome}, not skipped`);
    }
  });
  return seconds;
}

async function main(): Promise<void> {
  const runs = Number(options.runs);
  const pool = getPool();
  const results: DatasetResult[] = [];
  const sizes = (await pool.query<{ country: string; parcels: number; companies: number }>(
    `SELECT c AS country, (SELECT count(*)::int FROM parcel WHERE country = c) AS parcels, (SELECT count(*)::int FROM company WHERE country = c) AS companies
     FROM unnest($1::text[]) AS c`,
    [COUNTRIES],
  )).rows;
  for (const country of COUNTRIES) {
    for (const dataset of selectDatasets(options.dataset)) {
      const first: number[] = [];
      const rerun: number[] = [];
      let last: SourceRunSummary | undefined;
      let rerunChanges = 0;
      for (let i = 1; i <= runs; i++) {
        // A first computation: the country's live rows gone, as before the dataset's first night.
        await pool.query(`DELETE FROM ${dataset.liveTable} WHERE country = $1`, [country]);
        await pool.query(`VACUUM ANALYZE ${dataset.liveTable}`);
        const a = await derive(dataset.id, country, 'first');
        const b = await derive(dataset.id, country, 'rerun');
        first.push(a.seconds);
        rerun.push(b.seconds);
        last = a.summary;
        rerunChanges += b.summary.inserted + b.summary.updated + b.summary.deleted;
        log(`${dataset.id} ${country} run ${i}/${runs}: first ${a.seconds.toFixed(1)} s (${a.summary.rowsStaged} rows from ${a.summary.rowsRead} read), re-run ${b.seconds.toFixed(1)} s (${b.summary.inserted}/${b.summary.updated}/${b.summary.deleted})`);
      }
      results.push({ datasetId: dataset.id, country, first: spread(first), rerun: spread(rerun), rowsRead: last!.rowsRead, rows: last!.rowsStaged, rerunChanges });
    }
  }
  const unchangedNight = await skippedNight();
  log(`a night on unchanged inputs: ${unchangedNight.toFixed(1)} s, every dataset skipped`);
  const section = render(results, sizes, runs, unchangedNight);
  if (options.report) await replaceSection(path.resolve(options.report), 'derive-benchmark', section);
  process.stdout.write(section);
  await closePools();
}

const s = (x: Spread) => `${x.median.toFixed(1)} (${x.min.toFixed(1)}–${x.max.toFixed(1)})`;

function render(results: DatasetResult[], sizes: { country: string; parcels: number; companies: number }[], runs: number, unchangedNight: number): string {
  const total = (pick: (r: DatasetResult) => number) => results.reduce((sum, r) => sum + pick(r), 0);
  return [
    '<!-- derive-benchmark:start -->',
    '## Derived datasets',
    '',
    `On the store loaded above (${sizes.map((c) => `${c.country}: ${c.parcels.toLocaleString('en')} parcels, ${c.companies.toLocaleString('en')} companies`).join('; ')}), ${os.cpus().length} cores.`,
    `Each dataset through the derive activity (compute into UNLOGGED staging, one merge transaction, ledger); seconds, median (min–max) of ${runs} run(s).`,
    '"First" computes into an empty live table (every row inserted); "re-run" computes again on unchanged inputs, which must write nothing.',
    '',
    '| dataset | country | input records | rows | first, s | re-run, s | re-run changes |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.datasetId} | ${r.country} | ${r.rowsRead.toLocaleString('en')} | ${r.rows.toLocaleString('en')} | ${s(r.first)} | ${s(r.rerun)} | ${r.rerunChanges} |`),
    '',
    `All datasets, ${COUNTRIES.length === 2 ? 'both countries' : `${COUNTRIES[0]} only`}, one after the other: ${(total((r) => r.first.median) / 60).toFixed(1)} min for a first computation, ${(total((r) => r.rerun.median) / 60).toFixed(1)} min for a nightly re-run (target: all four within 15 min, both countries). The nightly workflow runs the two countries side by side.`,
    `A nightly refresh on unchanged inputs skips every dataset (their inputs fingerprint is that of their last computation, docs/derived/README.md): ${unchangedNight.toFixed(1)} s for all of them.`,
    '<!-- derive-benchmark:end -->',
    '',
  ].join('\n');
}

await main();
