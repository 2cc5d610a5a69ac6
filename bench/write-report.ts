import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/config.js';
import { renderCountrySection, renderReport } from './report.js';
import { replaceSection } from './report-section.js';
import type { BenchResults } from './results.js';

/**
 * Writes a run's report. A national run of one country also puts its sources' table into
 * BENCHMARKS.md (section `national-<country>`), so the national figures of both countries,
 * measured in separate runs, are found in one place.
 */
export async function writeReport(results: BenchResults, out: string): Promise<void> {
  await writeFile(out, renderReport(results));
  const national = results.sample.profile === 'national' && results.sample.scale === 1;
  if (!results.country || !national) return;
  const summary = path.join(PROJECT_ROOT, 'BENCHMARKS.md');
  if (path.resolve(out) === summary) return;
  await replaceSection(summary, `national-${results.country}`, renderCountrySection(results, path.relative(PROJECT_ROOT, out)));
}
