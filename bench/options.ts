import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../lib/config.js';
import type { SampleProfileName } from '../sample/profile.js';
import { COUNTRIES, isCountry, type Country } from '../lib/domain/country.js';

/**
 * The benchmark's command line: `npm run bench -- [--scale S | --parcels N] [--runs N] [--out FILE]
 * [--country NO|SE] [--skip-ogr] [--skip-api] [--skip-derive] [--skip-webhooks] [--keep-database]`. By default
 * the sample is the national profile at scale 1 (sample/profile.ts): every register at its national size.
 */

export interface BenchOptions {
  /** `national` (default, `--scale`) or `parcels` (`--parcels N`, a smoke size with the generator's town-heavy ratios). */
  profile: SampleProfileName;
  /** The national profile's fraction of national size (1 = national); 1 for `parcels`. */
  scale: number;
  /** The parcels profile's size; undefined for the national profile (it sizes itself). */
  parcels: number | undefined;
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
  /**
   * Only this country's sources (and derived datasets); both when undefined. A national load of
   * both countries takes longer than one sitting on this machine, so each can be measured alone.
   */
  country: Country | undefined;
  /** Leave the loaded store (database nordprop_bench) in place at the end, to measure more on it. */
  keepDatabase: boolean;
  /** Where the sample, worker data and logs go. */
  workDir: string;
  sampleDir: string;
  /** A short name of the sample size, for file names: `national`, `national-0.1`, `parcels-3000`. */
  sizeLabel: string;
  databaseName: string;
}

const USAGE = `usage: npm run bench -- [--scale S | --parcels N] [--runs N] [--out FILE] [--country NO|SE] [--skip-ogr] [--skip-api] [--skip-derive] [--skip-webhooks] [--keep-database]
  --scale S    national profile at S × national size, e.g. 0.1 (default 1: 2.6 M Norwegian addresses,
               4.2 M buildings, 1.1 M companies; 3.3 M Swedish properties, 8 M buildings, 3 M companies)
  --parcels N  instead a small sample of N parcels with the generator's town-heavy ratios (a smoke run;
               ≈3.4 addresses per parcel, not national proportions)
  --runs N     repetitions of each measurement, median reported (default 3)
  --out FILE   report file (default BENCHMARKS.md at national size, BENCHMARKS-<country>.md with --country,
               .data/bench/BENCHMARKS-<size>.md below national size)
  --country C  only the sources (and derived datasets) of NO or SE; for Sweden the compared load is se-cadastre
  --skip-ogr   do not run the ogr2ogr comparisons
  --skip-api   do not load-test the REST API on the loaded store
  --skip-derive  do not time the derived datasets on the loaded store
  --skip-webhooks  do not measure change events and webhook delivery on the loaded store
  --keep-database  leave the loaded store (database nordprop_bench) in place at the end`;

/** A `--country` value: NO, SE or absent (both); anything else is the user's to fix. */
export function countryOption(text: string | undefined, usage = ''): Country | undefined {
  if (text === undefined) return undefined;
  if (!isCountry(text)) throw new Error(`--country must be one of ${COUNTRIES.join(', ')}, got "${text}"${usage ? `\n${usage}` : ''}`);
  return text;
}

/** A numeric `--name` value that `ok` accepts, else `fallback` when absent; anything else is the user's to fix. */
export function numberOption(name: string, text: string | undefined, fallback: number, ok: (value: number) => boolean, usage = ''): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || !ok(value)) throw new Error(`--${name}: "${text}" is not allowed${usage ? `\n${usage}` : ''}`);
  return value;
}

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
      scale: { type: 'string' },
      runs: { type: 'string' },
      out: { type: 'string' },
      'skip-ogr': { type: 'boolean', default: false },
      'skip-api': { type: 'boolean', default: false },
      'skip-derive': { type: 'boolean', default: false },
      'skip-webhooks': { type: 'boolean', default: false },
      country: { type: 'string' },
      'keep-database': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.parcels !== undefined && values.scale !== undefined) throw new Error(`--scale and --parcels are two different sample profiles: give one\n${USAGE}`);
  const parcels = values.parcels === undefined ? undefined : positiveInt('parcels', values.parcels, 0);
  const scale = values.scale === undefined ? 1 : Number(values.scale);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1) throw new Error(`--scale must be a number in (0, 1], got "${values.scale}"\n${USAGE}`);
  const country = countryOption(values.country, USAGE);
  const profile: SampleProfileName = parcels === undefined ? 'national' : 'parcels';
  const runs = positiveInt('runs', values.runs, 3);
  const workDir = path.join(PROJECT_ROOT, '.data/bench');
  // A smaller run gets its own sample folder and report, so it never overwrites the national
  // sample (slow to regenerate) or the committed figures.
  const national = profile === 'national' && scale === 1;
  const sampleLabel = profile === 'parcels' ? `parcels-${parcels}` : national ? 'national' : `national-${scale}`;
  const sizeLabel = country ? `${sampleLabel}-${country}` : sampleLabel;
  // Both countries' files are generated together, so a one-country run reuses the same sample.
  const sampleDir = path.join(workDir, national ? 'sample' : `sample-${sampleLabel}`);
  const out = values.out
    ? path.resolve(values.out)
    : national
      ? path.join(PROJECT_ROOT, country ? `BENCHMARKS-${country}.md` : 'BENCHMARKS.md')
      : path.join(workDir, `BENCHMARKS-${sizeLabel}.md`);
  return {
    profile, scale: profile === 'national' ? scale : 1, parcels, runs, out, skipOgr: values['skip-ogr'] ?? false, skipApi: values['skip-api'] ?? false,
    skipDerive: values['skip-derive'] ?? false, skipWebhooks: values['skip-webhooks'] ?? false, country, keepDatabase: values['keep-database'] ?? false, workDir, sampleDir, sizeLabel, databaseName: 'nordprop_bench',
  };
}
