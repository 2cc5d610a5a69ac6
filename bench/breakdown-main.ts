/**
 * Runs one breakdown in a process of its own and prints its result as JSON, so the code it
 * measures is loaded from the benchmark's frozen snapshot of dist/ like the workers':
 *   node dist/bench/breakdown-main.js stage <sourceId> <zip>
 *   node dist/bench/breakdown-main.js publish <sourceId> <databaseUrl>
 */
import pg from 'pg';
import { publishBreakdown } from './publish-breakdown.js';
import { adapterStageBreakdown, addressStageBreakdown, teigStageBreakdown } from './stage-breakdown.js';

async function main(): Promise<unknown> {
  const [kind, sourceId, argument] = process.argv.slice(2);
  if (kind === 'stage' && argument) {
    if (sourceId === 'no-address') return addressStageBreakdown(argument);
    if (sourceId === 'no-cadastre') return teigStageBreakdown(argument);
    return adapterStageBreakdown(sourceId, argument);
  }
  if (kind === 'publish' && argument) {
    const pool = new pg.Pool({ connectionString: argument, max: 2, application_name: 'nordprop-bench-publish' });
    try {
      return await publishBreakdown(pool, sourceId);
    } finally {
      await pool.end();
    }
  }
  throw new Error(`usage: breakdown-main.js stage|publish <sourceId> <zip|databaseUrl> (got ${process.argv.slice(2).join(' ')})`);
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
