/**
 * Address search benchmark: p50 / p99 of each query shape of GET /addresses/{country}/{address}
 * on a national-size address table, at 4 connections. It measures the store's search
 * (api/store/address-search.ts: the transaction with its statement timeout and the one search
 * statement), called by 4 concurrent workers in a closed loop, each query text another address
 * of the table written in that shape. The HTTP layer's own cost per request (token, call count,
 * validation) is the API section's.
 *
 *   npx tsx bench/address-search.ts [--database-url postgres://…/nordprop_address_bench] [--scale 1] [--reload]
 *     [--duration 15] [--warmup 3] [--connections 4] [--before] [--load-only] [--write-benchmarks]
 *
 * The table: Norway's addresses from the sample generator at the national profile (scale 1: 2.6
 * million), written by bench/address-rows.ts into a database of its own (created and migrated
 * when missing or with --reload; the search indexes built after the rows, each timed). With
 * --before, the search as it was before the indexes (commit 392153c) runs once for a query of
 * short words only, for comparison. Writes .data/bench/address-search.md and, with
 * --write-benchmarks, its section of BENCHMARKS.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../lib/config.js';
import { SESSION_OPTIONS } from '../lib/db.js';
import { createDatabase, databaseUrlFor, dropDatabase } from '../lib/database-admin.js';
import { migrate } from '../lib/migrate.js';
import { ADDRESS_CANDIDATE_LIMIT, ADDRESS_SEARCH_TIMEOUT_MS, SEARCH_SQL, searchAddresses } from '../api/store/address-search.js';
import { ADMIN_URL } from './database.js';
import { loadSampleAddresses } from './address-rows.js';
import { monitorLoad } from './load-monitor.js';
import { replaceSection } from './report-section.js';
import { sourceState } from './build-stamp.js';

const log = (line: string) => process.stderr.write(`[address-search ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const { values: options } = parseArgs({
  options: {
    'database-url': { type: 'string', default: databaseUrlFor(ADMIN_URL, 'nordprop_address_bench') },
    scale: { type: 'string', default: '1' },
    reload: { type: 'boolean', default: false },
    duration: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '4' },
    /** Addresses sampled to write the query texts of each shape. */
    queries: { type: 'string', default: '4000' },
    before: { type: 'boolean', default: false },
    /** Load the table (when it needs it) and stop: the measurements can wait for a quiet machine. */
    'load-only': { type: 'boolean', default: false },
    'write-benchmarks': { type: 'boolean', default: false },
  },
});
const databaseUrl = options['database-url']!;
const scale = Number(options.scale);
const duration = Number(options.duration);
const warmup = Number(options.warmup);
const connections = Number(options.connections);
const queryCount = Number(options.queries);
if (!(scale > 0 && scale <= 1) || !(duration > 0) || !(warmup >= 0) || !Number.isInteger(connections) || connections < 1) {
  throw new Error('--scale must be in (0, 1], --duration positive, --warmup at least 0, --connections a whole number of at least 1');
}
const TARGET_P99_MS = 50;
const EXPLAINED_PER_SHAPE = 20;

interface SampleRow {
  address_text: string;
  street_name: string | null;
  house_number: number | null;
  house_letter: string | null;
  postal_code: string | null;
  postal_place: string | null;
}

interface Shape {
  name: string;
  /** The query texts, one per sampled address (the shape's own when it has none). */
  texts: string[];
}

const ascii = (s: string) => s.replace(/æ/g, 'ae').replace(/Æ/g, 'AE').replace(/[øØ]/g, (c) => (c === 'ø' ? 'o' : 'O')).replace(/[åÅ]/g, (c) => (c === 'å' ? 'a' : 'A'));
/** A deterministic pseudo-random sequence (the same queries on every run). */
function* numbers(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    yield x;
  }
}

function shapesOf(rows: SampleRow[]): Shape[] {
  const streets = rows.filter((r) => r.street_name && r.house_number !== null);
  const lettered = streets.filter((r) => r.house_letter);
  const plain = streets.filter((r) => !r.house_letter);
  const random = numbers(42);
  const next = (n: number) => (random.next().value as number) % n;
  const letters = 'abcdefghijklmnoprstuvyæøå';
  return [
    { name: 'only short words (`1 2 3`: three numbers under 100)', texts: rows.map(() => `${1 + next(99)} ${1 + next(99)} ${1 + next(99)}`) },
    { name: 'a single letter (`a`)', texts: rows.map(() => letters[next(letters.length)]) },
    { name: 'two short words (`gt 5`, `a b`)', texts: rows.map((_, i) => (i % 2 ? `gt ${1 + next(30)}` : `${letters[next(letters.length)]} ${letters[next(letters.length)]}`)) },
    { name: 'one long word: a street (`Bjørkelia`)', texts: streets.map((r) => r.street_name!) },
    { name: 'one long word: a postal place (`Bergen`)', texts: rows.filter((r) => r.postal_place).map((r) => r.postal_place!.toLowerCase()) },
    { name: 'street and number (`Bjørkelia 25`)', texts: plain.map((r) => r.address_text) },
    { name: 'street, number and letter apart (`Rognetunet 98 A`)', texts: lettered.map((r) => `${r.street_name} ${r.house_number} ${r.house_letter}`) },
    { name: 'full address (`Bjørkelia 25A, 0150 Oslo`)', texts: streets.map((r) => `${r.address_text}, ${r.postal_code} ${r.postal_place}`) },
    { name: 'postal code only (`0150`)', texts: rows.filter((r) => r.postal_code).map((r) => r.postal_code!) },
    { name: 'number, street, place out of order (`25 Bjørkelia Oslo`)', texts: streets.map((r) => `${r.house_number} ${r.street_name} ${r.postal_place}`) },
    { name: 'street partly written and number (`Bjørk 25`)', texts: streets.map((r) => `${r.street_name!.slice(0, 5)} ${r.house_number}`) },
    { name: 'place and number, vague (`Bergen 1`)', texts: rows.filter((r) => r.postal_place).map((r) => `${r.postal_place!.toLowerCase()} ${1 + next(9)}`) },
    { name: 'æøå written in ASCII (`Bjorkeasen 12`)', texts: streets.filter((r) => /[æøå]/i.test(r.address_text)).map((r) => ascii(r.address_text).toLowerCase()) },
  ];
}

interface Measurement {
  requests: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  /** Share of queries with at least one address. */
  found: number;
}

/** `connections` workers in a closed loop over the texts for `seconds`. */
async function measure(pool: pg.Pool, texts: string[], seconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let found = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const text = texts[next++ % texts.length];
        const t0 = performance.now();
        try {
          const items = await searchAddresses(pool, 'NO', text, false);
          if (items.length) found++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { requests: latencies.length, seconds: elapsed, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies[latencies.length - 1], errors, found: found / Math.max(1, latencies.length) };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Over a few texts of the shape: the indexes the plan read address through, Seq Scans on it, and the most address rows one query read. */
async function plansOf(pool: pg.Pool, texts: string[]): Promise<{ indexes: string[]; seqScans: number; maxRowsRead: number }> {
  const indexes = new Set<string>();
  let seqScans = 0;
  let maxRowsRead = 0;
  for (const text of texts.slice(0, EXPLAINED_PER_SHAPE)) {
    const result = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${SEARCH_SQL}`, ['NO', text]);
    const nodes = nodesOf(result.rows[0]['QUERY PLAN'][0].Plan as PlanNode);
    let rows = 0;
    for (const node of nodes) {
      if (node['Node Type'] === 'Bitmap Index Scan' && node['Actual Loops']) indexes.add(node['Index Name']!);
      if (node['Relation Name'] !== 'address') continue;
      if (node['Node Type'] === 'Seq Scan') seqScans++;
      if (node['Index Name'] && node['Actual Loops']) indexes.add(node['Index Name']);
      rows += ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 0);
    }
    maxRowsRead = Math.max(maxRowsRead, rows);
  }
  return { indexes: [...indexes].sort(), seqScans, maxRowsRead };
}

/**
 * The search as it was before the search indexes (api/store/address-search.ts at 392153c), for
 * a query whose words are all short: one condition per word on every address of the country.
 */
function searchBefore(words: string[]): { text: string; values: unknown[] } {
  const folded = words.join(' ');
  const params: unknown[] = ['NO', folded];
  const key = `address_search_key(a.address_text, a.postal_code, a.postal_place)`;
  const conditions = words.map((word) => (params.push(word), `strpos(' ' || ${key}, ' ' || $${params.length}) > 0`));
  const canonical = `address_fold(concat_ws(' ', a.address_text, a.postal_code, a.postal_place))`;
  return {
    text: `SELECT json_strip_nulls(api_address(a)) AS address FROM address a
           WHERE a.country = $1 AND ${conditions.join(' AND ')}
           ORDER BY address_fold(a.address_text) = $2 DESC, ${canonical} LIKE $2 || '%' DESC, similarity(${canonical}, $2) DESC,
                    a.street_name, a.house_number, a.house_letter NULLS FIRST, a.address_id
           LIMIT 20`,
    values: params,
  };
}

const SEARCH_INDEXES = ['address_search_prefix_idx', 'address_search_document_idx'];

/** The table at the scale asked for: loaded when missing, of another size, or with --reload; the search indexes built after the rows. */
async function prepare(): Promise<{ loadedNow: boolean; loadSeconds?: number; indexSeconds: Record<string, number> }> {
  const expected = async (pool: pg.Pool) => {
    const state = await pool.query(`SELECT value FROM address_search_bench_state WHERE key = 'scale'`).catch(() => ({ rows: [] as { value: string }[] }));
    return state.rows[0]?.value === String(scale);
  };
  let pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const exists = await pool.query('SELECT 1').then(() => true, () => false);
  if (exists && !options.reload) {
    // A table loaded by this benchmark is kept as it is (--reload after a change to the search's migration).
    if (await expected(pool)) {
      await pool.end();
      return { loadedNow: false, indexSeconds: {} };
    }
  }
  await pool.end();
  log(`creating ${databaseUrl.replace(/\/\/[^@]*@/, '//')} and loading Norway's addresses at scale ${scale}`);
  await dropDatabase(databaseUrl);
  await createDatabase(databaseUrl);
  await migrate(databaseUrl);
  pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const definitions = (await pool.query<{ name: string; definition: string }>(`SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'address' AND indexname = ANY($1)`, [SEARCH_INDEXES])).rows;
    for (const { name: index } of definitions) await pool.query(`DROP INDEX ${index}`);
    const loadStart = performance.now();
    const rows = await loadSampleAddresses(pool, { scale, seed: 'bench', onProgress: (n) => n % 500_000 === 0 && log(`${n.toLocaleString('en')} addresses`) });
    const loadSeconds = (performance.now() - loadStart) / 1000;
    log(`${rows.toLocaleString('en')} addresses in ${loadSeconds.toFixed(0)} s; building the search indexes`);
    const indexSeconds: Record<string, number> = {};
    await pool.query(`SET maintenance_work_mem = '256MB'`);
    for (const { name: index, definition } of definitions) {
      const t0 = performance.now();
      await pool.query(definition);
      indexSeconds[index] = (performance.now() - t0) / 1000;
      log(`${index} in ${indexSeconds[index].toFixed(0)} s`);
    }
    await pool.query('VACUUM (ANALYZE) address');
    await pool.query(`CREATE TABLE address_search_bench_state (key text PRIMARY KEY, value text); INSERT INTO address_search_bench_state VALUES ('scale', '${scale}')`);
    return { loadedNow: true, loadSeconds, indexSeconds };
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const prepared = await prepare();
  if (options['load-only']) return;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections, options: SESSION_OPTIONS.api, application_name: 'nordprop-address-search-bench' });
  try {
    const facts = (
      await pool.query(
        `SELECT (SELECT count(*) FROM address WHERE country = 'NO')::int AS addresses,
                pg_size_pretty(pg_relation_size('address')) AS heap,
                pg_size_pretty(pg_relation_size('address_search_prefix_idx')) AS prefix_idx,
                pg_size_pretty(pg_relation_size('address_search_document_idx')) AS document_idx,
                current_setting('server_version') AS postgres, current_setting('shared_buffers') AS shared_buffers, current_setting('work_mem') AS work_mem`,
      )
    ).rows[0];
    const sample = (
      await pool.query<SampleRow>(
        `SELECT address_text, street_name, house_number, house_letter, postal_code, postal_place
         FROM address TABLESAMPLE BERNOULLI ($1) REPEATABLE (7) WHERE country = 'NO' ORDER BY address_id LIMIT $2`,
        [Math.min(100, (queryCount / facts.addresses) * 200), queryCount],
      )
    ).rows;
    const shapes = shapesOf(sample);
    log(`${facts.addresses.toLocaleString('en')} addresses; ${shapes.length} shapes, ${connections} connections, ${warmup} s warm-up + ${duration} s each`);

    const loadAtStart = os.loadavg();
    const monitor = monitorLoad();
    const results: { shape: Shape; measurement: Measurement; plans: Awaited<ReturnType<typeof plansOf>> }[] = [];
    for (const shape of shapes) {
      if (warmup > 0) await measure(pool, shape.texts, warmup);
      const measurement = await measure(pool, shape.texts, duration);
      const plans = await plansOf(pool, shape.texts);
      log(`${shape.name}: p50 ${measurement.p50Ms.toFixed(1)} ms, p99 ${measurement.p99Ms.toFixed(1)} ms, ${(measurement.requests / measurement.seconds).toFixed(0)}/s, ${plans.maxRowsRead} rows read at most, ${plans.seqScans} Seq Scans`);
      results.push({ shape, measurement, plans });
    }
    const loadSamples = monitor.stop();
    const loadAtEnd = os.loadavg();
    // After the measurements: it holds a core for a minute or more.
    let before: { seconds: number; text: string; load: number } | undefined;
    if (options.before) {
      const words = ['1', '2', '3'];
      log(`the search before the indexes, once, for "${words.join(' ')}"`);
      const client = await pool.connect();
      try {
        await client.query(`SET statement_timeout = '600s'`);
        const load = os.loadavg()[0];
        const t0 = performance.now();
        await client.query(searchBefore(words));
        before = { seconds: (performance.now() - t0) / 1000, text: words.join(' '), load };
        await client.query('RESET statement_timeout');
      } finally {
        client.release();
      }
      log(`${before.seconds.toFixed(1)} s`);
    }

    const source = await sourceState();
    const report = render({ facts, prepared, before, results, loadAtStart, loadAtEnd, loadSamples, commit: source.commit });
    await mkdir(path.join(PROJECT_ROOT, '.data/bench'), { recursive: true });
    await writeFile(path.join(PROJECT_ROOT, '.data/bench/address-search.md'), report);
    process.stdout.write(report);
    if (options['write-benchmarks']) await replaceSection(path.join(PROJECT_ROOT, 'BENCHMARKS.md'), 'address-search-benchmark', report);
  } finally {
    await pool.end();
  }
}

interface ReportInput {
  facts: { addresses: number; heap: string; prefix_idx: string; document_idx: string; postgres: string; shared_buffers: string; work_mem: string };
  prepared: Awaited<ReturnType<typeof prepare>>;
  before?: { seconds: number; text: string; load: number };
  results: { shape: Shape; measurement: Measurement; plans: Awaited<ReturnType<typeof plansOf>> }[];
  loadAtStart: number[];
  loadAtEnd: number[];
  loadSamples: number[];
  commit: string;
}

function render(input: ReportInput): string {
  const { facts, prepared, before, results } = input;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const loads = (values: number[]) => values.map((v) => v.toFixed(1)).join(' / ');
  const met = results.filter((r) => r.measurement.p99Ms < TARGET_P99_MS && r.measurement.errors === 0 && r.plans.seqScans === 0);
  const slowest = [...results].sort((a, b) => b.measurement.p99Ms - a.measurement.p99Ms)[0];
  const shortIndexName = (name: string) => name.replace(/^address_search_/, '').replace(/_idx$/, '');
  return [
    '<!-- address-search-benchmark:start -->',
    `## Address search by query shape, ${scale === 1 ? 'national size' : `${scale} × national size (not national)`}`,
    '',
    `${facts.addresses.toLocaleString('en')} Norwegian addresses (the sample generator's national profile at scale ${scale}, written into \`address\` by bench/address-rows.ts through the no-address adapter's row reader, in a database of their own: no other table is loaded); table ${facts.heap}, btree \`address_search_prefix_idx\` ${facts.prefix_idx}, GIN \`address_search_document_idx\` ${facts.document_idx}` +
      (prepared.loadedNow ? `, built after the rows in ${Object.entries(prepared.indexSeconds).map(([n, s]) => `${s.toFixed(0)} s (${shortIndexName(n)})`).join(' and ')}` : '') +
      '.',
    `Measured by \`npx tsx bench/address-search.ts${options.before ? ' --before' : ''}\` at commit \`${input.commit}\`: the store's search (\`searchAddresses\`: BEGIN with its ${ADDRESS_SEARCH_TIMEOUT_MS} ms statement timeout, the one search statement, COMMIT) called by ${connections} workers in a closed loop over ${connections} connections with the API's session settings, each request another address of the table written in the shape (a few thousand per shape, sampled with a fixed seed); ${warmup} s unmeasured, then ${duration} s measured per shape. The HTTP layer adds its own fixed cost per request (the REST API section). PostgreSQL ${facts.postgres} on the same ${os.cpus().length} cores, shared_buffers ${facts.shared_buffers}, work_mem ${facts.work_mem}.`,
    `Load average (1 / 5 / 15 min) ${loads(input.loadAtStart)} at the start, ${loads(input.loadAtEnd)} at the end; the 1-minute figure every 5 s during the measurements: median ${median(input.loadSamples).toFixed(1)}, max ${Math.max(...input.loadSamples).toFixed(1)} (on 2 cores the benchmark alone holds it near 2: more means other work shared the machine).`,
    '',
    '| query shape | requests/s | p50 ms | p99 ms | max ms | errors | found | indexes read (EXPLAIN ANALYZE of 20 queries) | most address rows one query read | Seq Scan on address |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|',
    ...results.map(({ shape, measurement: m, plans }) =>
      `| ${shape.name} | ${(m.requests / m.seconds).toFixed(0)} | ${m.p50Ms.toFixed(2)} | ${m.p99Ms.toFixed(2)} | ${m.maxMs.toFixed(1)} | ${m.errors} | ${(m.found * 100).toFixed(0)} % | ${plans.indexes.map(shortIndexName).join(', ')} | ${plans.maxRowsRead} | ${plans.seqScans} |`,
    ),
    '',
    `- Target: every shape p99 under ${TARGET_P99_MS} ms at ${connections} connections: **${met.length === results.length ? 'met' : 'not met'}** (${met.length} of ${results.length} shapes; the slowest p99 ${slowest.measurement.p99Ms.toFixed(1)} ms, ${slowest.shape.name}).`,
    `- Bounded: no plan scanned the table; a query reads at most 20 rows from the prefix index and ${ADDRESS_CANDIDATE_LIMIT} from each of the two word reads of the GIN index, whatever the size of the table ("most address rows one query read" above).`,
    before
      ? `- Before the indexes (the search of commit 392153c, run once here on the same table and settings): "${before.text}" took ${before.seconds.toFixed(1)} s (1-minute load average ${before.load.toFixed(1)} as it started), a condition on every address of the country.`
      : '- The search before the indexes was not run this time (`--before`).',
    '<!-- address-search-benchmark:end -->',
    '',
  ].join('\n');
}

await main();
