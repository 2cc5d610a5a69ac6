/**
 * Re-renders a report from the results a benchmark run saved, without measuring again:
 *   node dist/bench/render.js .data/bench/results-300000.json BENCHMARKS.md
 */
import { readFile, writeFile } from 'node:fs/promises';
import { renderReport, renderSummary } from './report.js';
import type { BenchResults } from './results.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node dist/bench/render.js <results.json> <report.md>');
  process.exit(2);
}
const results = JSON.parse(await readFile(input, 'utf8')) as BenchResults;
await writeFile(output, renderReport(results));
process.stdout.write(renderSummary(results, output));
