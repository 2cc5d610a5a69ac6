/**
 * The derive step of real runs, read from the run ledger: how long each dataset took per
 * country, what it wrote, and how long the step took from its first dataset's start to its last
 * one's end, the countries side by side as the nightly workflow runs them. bench/derive.ts times
 * each dataset alone, one after the other; this is the figure the target is about (all four
 * datasets, both countries, within 15 minutes), on a store loaded by a nightly refresh:
 *
 *   npm run build && node dist/bench/derive-night.js --database-url postgres://…/nordprop_national --run RUN_ID [--run RUN_ID] [--report FILE]
 *
 * Each `--run` is a refresh (its derive step) or a `nordprop derive` run; a second one on
 * unchanged inputs shows what a re-computation changes. It adds (or replaces) its section in the
 * report; without `--report` it prints it.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { COUNTRIES } from '../lib/domain/country.js';
import { deriveStep, renderDeriveNight, type DeriveStep } from './derive-ledger.js';
import { replaceSection } from './report-section.js';

const { values: options } = parseArgs({
  options: {
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/nordprop' },
    run: { type: 'string', multiple: true },
    report: { type: 'string' },
  },
});

async function main(): Promise<void> {
  if (!options.run?.length) throw new Error('name at least one run: --run RUN_ID (see `nordprop runs`)');
  const pool = new pg.Pool({ connectionString: options['database-url'], max: 1 });
  try {
    const steps: DeriveStep[] = [];
    for (const runId of options.run) steps.push(await deriveStep(pool, runId));
    const sizes = (await pool.query(
      `SELECT c AS country, (SELECT count(*)::int FROM parcel WHERE country = c) AS parcels,
              (SELECT count(*)::int FROM property_transaction WHERE country = c) AS transactions,
              (SELECT count(*)::int FROM company WHERE country = c) AS companies
       FROM unnest($1::text[]) AS c`,
      [COUNTRIES],
    )).rows;
    const section = renderDeriveNight(steps, sizes);
    if (options.report) await replaceSection(path.resolve(options.report), 'national-derive', section);
    process.stdout.write(section);
  } finally {
    await pool.end();
  }
}

await main();
