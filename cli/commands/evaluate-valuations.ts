import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { getPool, withTransaction } from '../../lib/db.js';
import { tuneBulkTransaction } from '../../lib/bulk-settings.js';
import { PROJECT_ROOT } from '../../lib/config.js';
import { COUNTRIES, type Country } from '../../lib/domain/country.js';
import { evaluateCountry, renderEvaluationReport, type CountryEvaluation } from '../../evaluations/valuations.js';
import { printJson } from '../output.js';

export const DEFAULT_EVALUATION_REPORT = path.join(PROJECT_ROOT, 'docs/derived/valuation-evaluation.md');

/**
 * `nordprop evaluate-valuations`: the valuation model judged on held-out sales of the loaded registers, per
 * country, written as a Markdown report (the committed docs/derived/valuation-evaluation.md is
 * this command's output on the generated sample).
 */
export async function evaluateValuationsCommand(options: { country?: Country; asOf: string; out: string; sample: string; json: boolean }): Promise<number> {
  const countries: readonly Country[] = options.country ? [options.country] : COUNTRIES;
  const results: CountryEvaluation[] = [];
  // One transaction per country, with the settings of the nightly computation it repeats.
  for (const country of countries) {
    results.push(await withTransaction(getPool(), async (client) => {
      await tuneBulkTransaction(client);
      return evaluateCountry(client, country, options.asOf);
    }));
  }
  const command = ['nordprop evaluate-valuations', `--as-of ${options.asOf}`, ...(options.country ? [`--country ${options.country}`] : [])].join(' ');
  const report = renderEvaluationReport(results, { command, producedAt: new Date().toISOString().slice(0, 10), sample: options.sample });
  if (options.out !== '-') await writeFile(options.out, report);
  if (options.json) printJson(results);
  else process.stdout.write(report);
  return 0;
}
