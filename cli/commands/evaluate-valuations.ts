import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { getPool } from '../../lib/db.js';
import { PROJECT_ROOT } from '../../lib/config.js';
import type { Country } from '../../sources/source-adapter.js';
import { evaluateCountry, renderEvaluationReport, type CountryEvaluation } from '../../derive/valuations/evaluate.js';
import { printJson } from '../output.js';

export const DEFAULT_EVALUATION_REPORT = path.join(PROJECT_ROOT, 'docs/derived/valuation-evaluation.md');

/**
 * `nordprop evaluate-valuations`: the valuation model judged on held-out sales of the loaded registers, per
 * country, written as a Markdown report (the committed docs/derived/valuation-evaluation.md is
 * this command's output on the generated sample).
 */
export async function evaluateValuationsCommand(options: { country?: Country; asOf: string; out: string; sample: string; json: boolean }): Promise<number> {
  const countries: Country[] = options.country ? [options.country] : ['NO', 'SE'];
  const results: CountryEvaluation[] = [];
  const client = await getPool().connect();
  try {
    for (const country of countries) results.push(await evaluateCountry(client, country, options.asOf));
  } finally {
    client.release();
  }
  const command = ['nordprop evaluate-valuations', `--as-of ${options.asOf}`, ...(options.country ? [`--country ${options.country}`] : [])].join(' ');
  const report = renderEvaluationReport(results, { command, producedAt: new Date().toISOString().slice(0, 10), sample: options.sample });
  if (options.out !== '-') await writeFile(options.out, report);
  if (options.json) printJson(results);
  else process.stdout.write(report);
  return 0;
}
