/**
 * Re-renders a report from the results a benchmark run saved, without measuring again:
 *   node dist/bench/render.js .data/bench/results-300000.json BENCHMARKS.md
 * (a national one-country run also updates its section of BENCHMARKS.md, as the run does).
 */
import { readFile } from 'node:fs/promises';
import { renderSummary } from './report.js';
import type { BenchResults } from './results.js';
import { writeReport } from './write-report.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node dist/bench/render.js <results.json> <report.md>');
  process.exit(2);
}
const results = JSON.parse(await readFile(input, 'utf8')) as BenchResults;
await writeReport(results, output);
process.stdout.write(renderSummary(results, output));
