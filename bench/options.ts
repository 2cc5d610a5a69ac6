import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../lib/config.js';

/** The benchmark's command line: `npm run bench -- [--parcels N] [--runs N] [--out FILE] [--skip-ogr] [--skip-api] [--skip-derive] [--skip-webhooks]`. */

export const NATIONAL_PARCELS = 300_000;

export interface BenchOptions {
  /** Sample size in parcels (≈3.3 addresses each); 300,000 is national size. */
  parcels: number;
  /** Repetitions of each measurement; medians are reported. */
  runs: number;
  /** The Markdown report written at the end. */
  out: string;
  /** Leave out the ogr2ogr comparisons (for a quick smoke run without GDAL). */
  skipOgr: boolean;
  /** Leave out the REST API load test (bench/api-load.ts) on the loaded store. */
  skipApi: boolean;
  /** Leave out the derived datasets (bench/derive.ts) on the loaded store. */
  skipDerive: boolean;
  /** Leave out the webhook benchmark (bench/webhooks.ts) on the loaded store. */
  skipWebhooks: boolean;
  /** Where the sample, worker data and logs go. */
  workDir: string;
  sampleDir: string;
  databaseName: string;
}

const USAGE = `usage: npm run bench -- [--parcels N] [--runs N] [--out FILE] [--skip-ogr] [--skip-api] [--skip-derive] [--skip-webhooks]
  --parcels N  sample size in parcels (default ${NATIONAL_PARCELS}, national size: ≈1,000,000 addresses)
  --runs N     repetitions of each measurement, median reported (default 3)
  --out FILE   report file (default BENCHMARKS.md at national size, .data/bench/BENCHMARKS-<N>.md otherwise)
  --skip-ogr   do not run the ogr2ogr comparisons
  --skip-api   do not load-test the REST API on the loaded store
  --skip-derive  do not time the derived datasets on the loaded store
  --skip-webhooks  do not measure change events and webhook delivery on the loaded store`;

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number, got "${text}"\n${USAGE}`);
  return value;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      parcels: { type: 'string' },
      runs: { type: 'string' },
      out: { type: 'string' },
      'skip-ogr': { type: 'boolean', default: false },
      'skip-api': { type: 'boolean', default: false },
      'skip-derive': { type: 'boolean', default: false },
      'skip-webhooks': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const parcels = positiveInt('parcels', values.parcels, NATIONAL_PARCELS);
  const runs = positiveInt('runs', values.runs, 3);
  const workDir = path.join(PROJECT_ROOT, '.data/bench');
  // A smoke run at another size gets its own sample folder and report, so it never
  // overwrites the national sample (slow to regenerate) or the committed figures.
  const national = parcels === NATIONAL_PARCELS;
  const sampleDir = path.join(workDir, national ? 'sample' : `sample-${parcels}`);
  const out = values.out
    ? path.resolve(values.out)
    : national
      ? path.join(PROJECT_ROOT, 'BENCHMARKS.md')
      : path.join(workDir, `BENCHMARKS-${parcels}.md`);
  return { parcels, runs, out, skipOgr: values['skip-ogr'] ?? false, skipApi: values['skip-api'] ?? false, skipDerive: values['skip-derive'] ?? false, skipWebhooks: values['skip-webhooks'] ?? false, workDir, sampleDir, databaseName: 'nordprop_bench' };
}
