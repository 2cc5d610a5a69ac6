import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/config.js';
import { getPool } from '../../lib/db.js';
import { latestPublishedStats } from '../../lib/run-ledger.js';
import { readManifest, MANIFEST_NAME } from '../../sample/manifest.js';
import { evaluateTenants, renderTenantScores } from '../../evaluations/tenants.js';
import { MATCH_RULES } from '../../derive/tenants/rules.js';
import { printJson } from '../output.js';

export const DEFAULT_TENANT_REPORT = path.join(PROJECT_ROOT, 'docs/derived/tenant-evaluation.md');

/**
 * `nordprop evaluate-tenants --sample DIR`: scores the live tenants against the truth of the
 * sample the store was loaded from (its manifest names seed and size) and writes the report
 * (the committed docs/derived/tenant-evaluation.md is this command's output).
 */
export async function evaluateTenantsCommand(options: { sample: string; out: string; json: boolean }): Promise<number> {
  const manifest = await readManifest(path.join(options.sample, MANIFEST_NAME));
  if (!manifest) {
    console.error(`nordprop: ${options.sample} holds no sample manifest (${MANIFEST_NAME}); evaluate against the sample the store was loaded from`);
    return 2;
  }
  const pool = getPool();
  const scores = await evaluateTenants(pool, { parcels: manifest.parcels, seed: manifest.seed, profile: manifest.profile, scale: manifest.scale });
  const rules = await pool.query<{ country: string; match_rule: string; n: number }>(
    `SELECT country, match_rule, count(*)::int AS n FROM tenant GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const ledger = await latestPublishedStats(pool, ['derive-no-tenants', 'derive-se-tenants']);
  if (options.json) {
    printJson({ sample: { seed: manifest.seed, parcels: manifest.parcels, generatorVersion: manifest.version }, scores, rules: rules.rows, ledger });
  }
  const report = [
    '# Tenants: evaluation on the generated sample',
    '',
    `Written by \`nordprop evaluate-tenants --sample <dir>\` on ${new Date().toISOString().slice(0, 10)}, against the store loaded from`,
    `the sample of seed \`${manifest.seed}\`, ${manifest.parcels.toLocaleString('en')} parcels (generator version ${manifest.version}), after the derive step computed the tenants (\`nordprop refresh\` or \`nordprop derive\`).`,
    'The generator places every company at a known sample address and writes it the way registrants do (abbreviations, case, missing',
    'diacritics, a dropped letter, a missing house letter, a neighbouring postal code, c/o lines); the truth is the property of that',
    'address. A tenant row is correct when the truth puts that company on that property. Precision = correct / tenants at that',
    'confidence; recall = correct / companies in the truth. Targets for `HIGH`: precision ≥ 99 %, recall ≥ 95 %.',
    '',
    renderTenantScores(scores),
    '',
    '## Tenants by match rule',
    '',
    '| country | rule | confidence | tenants |',
    '|---|---|---|---:|',
    ...rules.rows.map((r) => `| ${r.country} | ${r.match_rule} | ${MATCH_RULES.find((m) => m.id === r.match_rule)?.confidence ?? ''} | ${r.n} |`),
    '',
    '## Company addresses the last derive run could not place',
    '',
    ...ledger.map((r) => `- ${r.source_id}: ${JSON.stringify(r.stats)}`),
    '',
    'See [tenants.md](tenants.md) for the rules. The sample has no companies at addresses missing from the address register, so',
    'these figures do not show how often a company at an unknown address is wrongly placed on a neighbour.',
    '',
  ].join('\n');
  if (options.out !== '-') await writeFile(options.out, report);
  if (!options.json) process.stdout.write(report);
  return 0;
}
