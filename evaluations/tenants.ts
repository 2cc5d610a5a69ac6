/**
 * Scores the tenants dataset against the sample generator's truth: the sample writes every
 * company at a known address, then spells it the way registrants do. Precision and recall per
 * country and confidence, computed in SQL against the live `tenant` table; the truth is
 * streamed into a temporary table in batches, so any sample size fits in memory.
 */
import type pg from 'pg';
import { sampleCompanies } from '../sample/no/companies.js';
import { plansOfSample, type SampleIdentity } from '../sample/plans.js';
import { sampleSwedishCompaniesOf } from '../sample/se/companies.js';
import { propertiesOfSwedishPlan } from '../sample/se/properties.js';
import { COUNTRIES, type Country } from '../lib/domain/country.js';

export interface TruthPair {
  country: Country;
  orgScheme: string;
  orgId: string;
  cadastreId: string;
}

/** Where each sample company really is (its business or location address's property). */
export function* sampleTenantTruth(sample: SampleIdentity): Generator<TruthPair> {
  const { plan: noPlan, sePlan: plan } = plansOfSample(sample); // any profile (sample/profile.ts)
  for (const company of sampleCompanies(noPlan)) {
    yield { country: 'NO', orgScheme: '0192', orgId: company.truth.organisasjonsnummer, cadastreId: company.truth.cadastreId };
  }
  for (const property of propertiesOfSwedishPlan(plan)) {
    for (const company of sampleSwedishCompaniesOf(property, sample.seed)) yield { country: 'SE', orgScheme: '0007', orgId: company.orgId, cadastreId: company.cadastreId };
  }
}

export interface LevelScore {
  /** `HIGH`, `MEDIUM`, `LOW`, or a cumulative level such as `HIGH+MEDIUM`. */
  level: string;
  predicted: number;
  correct: number;
  /** correct / predicted (null when nothing was predicted). */
  precision: number | null;
  /** correct / truth pairs. */
  recall: number;
}

export interface CountryScore {
  country: Country;
  truthPairs: number;
  levels: LevelScore[];
}

const BATCH = 5000;
const LEVELS: [name: string, confidences: string[]][] = [
  ['HIGH', ['HIGH']],
  ['MEDIUM', ['MEDIUM']],
  ['LOW', ['LOW']],
  ['HIGH+MEDIUM', ['HIGH', 'MEDIUM']],
  ['all', ['HIGH', 'MEDIUM', 'LOW']],
];

export async function evaluateTenants(pool: pg.Pool, sample: SampleIdentity): Promise<CountryScore[]> {
  const client = await pool.connect();
  try {
    await client.query(`CREATE TEMP TABLE tenant_truth (country text, org_scheme text, org_id text, cadastre_id text, PRIMARY KEY (country, org_scheme, org_id, cadastre_id))`);
    let batch: TruthPair[] = [];
    const flush = async () => {
      await client.query(
        `INSERT INTO tenant_truth SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
        [batch.map((t) => t.country), batch.map((t) => t.orgScheme), batch.map((t) => t.orgId), batch.map((t) => t.cadastreId)],
      );
      batch = [];
    };
    for (const pair of sampleTenantTruth(sample)) {
      batch.push(pair);
      if (batch.length === BATCH) await flush();
    }
    if (batch.length) await flush();
    await client.query(`ANALYZE tenant_truth`);
    const scores: CountryScore[] = [];
    for (const country of COUNTRIES) {
      const truthPairs = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM tenant_truth WHERE country = $1`, [country])).rows[0].n;
      const levels: LevelScore[] = [];
      for (const [level, confidences] of LEVELS) {
        const row = (
          await client.query<{ predicted: number; correct: number }>(
            `SELECT count(*)::int AS predicted, count(tt.org_id)::int AS correct
             FROM tenant t LEFT JOIN tenant_truth tt ON tt.country = t.country AND tt.org_scheme = t.org_scheme AND tt.org_id = t.org_id AND tt.cadastre_id = t.cadastre_id
             WHERE t.country = $1 AND t.confidence = ANY($2::text[])`,
            [country, confidences],
          )
        ).rows[0];
        levels.push({ level, ...row, precision: row.predicted ? row.correct / row.predicted : null, recall: truthPairs ? row.correct / truthPairs : 0 });
      }
      scores.push({ country, truthPairs, levels });
    }
    return scores;
  } finally {
    await client.query(`DROP TABLE IF EXISTS tenant_truth`).catch(() => undefined);
    client.release();
  }
}

const pct = (value: number | null) => (value === null ? '–' : `${(100 * value).toFixed(2)} %`);

/** The scores as a Markdown table per country, for the test output and the committed report. */
export function renderTenantScores(scores: CountryScore[]): string {
  return scores
    .map((score) =>
      [
        `**${score.country}**: ${score.truthPairs} companies in the sample truth`,
        '',
        '| confidence | tenants | correct | precision | recall |',
        '|---|---:|---:|---:|---:|',
        ...score.levels.map((l) => `| ${l.level} | ${l.predicted} | ${l.correct} | ${pct(l.precision)} | ${pct(l.recall)} |`),
      ].join('\n'),
    )
    .join('\n\n');
}
