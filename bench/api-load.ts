/**
 * API load benchmark: GET /coordinates/{country}/{lat}/{lon} and GET /properties/{country}/{id}
 * over loopback with wrk (a C load generator: it leaves the two cores to the API and PostgreSQL),
 * side by side with a bare pgbench of the same SQL (the ceiling) and, for the coordinates, the
 * same SQL behind a bare node:http server (bench/http-floor.ts: the floor of any Node.js API).
 * Reads an already loaded store (the demo's, or `npm run bench`'s national-size one):
 *
 *   npm run build && node dist/bench/api-load.js --database-url postgres://…/nordprop_bench [--duration 20] [--warmup 5] [--runs 3] [--connections 4,32]
 *
 * It starts its own API and floor processes (stopped at the end), writes `.data/bench/api-load.md`, and with
 * `--write-benchmarks` replaces the API section of BENCHMARKS.md.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../lib/config.js';
import { SESSION_OPTIONS } from '../lib/db.js';
import { COORDINATE_SQL } from '../api/store/coordinates.js';
import { PROPERTY_SQL } from '../api/store/property.js';
import { countryStatement } from '../api/store/country-statement.js';
import { createClient } from '../api/auth/clients.js';
import { replaceSection } from './report-section.js';
import { spread } from './stats.js';
import { backendPids, measureCpu, type CpuShare } from './process-cpu.js';
import { coordinateVerdict } from './api-target.js';

const run = promisify(execFile);
const log = (line: string) => process.stderr.write(`[api-bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Requests (transactions for pgbench) in the measurement. */
  requests: number;
  /** CPU per request of the server process and of PostgreSQL (bench/process-cpu.ts); undefined without /proc. */
  cpu?: CpuShare;
}

const { values: options } = parseArgs({
  options: {
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/nordprop' },
    duration: { type: 'string', default: '20' },
    /** Seconds of the same load before each measurement, not counted: pooled connections open, statements prepared, pages cached. */
    warmup: { type: 'string', default: '5' },
    /** Measurements of each figure; the report shows their median. */
    runs: { type: 'string', default: '3' },
    /** Concurrency levels, each measured for both endpoints and both ceilings. */
    connections: { type: 'string', default: '4,32' },
    points: { type: 'string', default: '10000' },
    'write-benchmarks': { type: 'boolean', default: false },
    /** A report to add the API section to (what `npm run bench` passes: the report it just wrote). */
    report: { type: 'string' },
  },
});
const databaseUrl = options['database-url']!;
const duration = Number(options.duration);
const warmup = Number(options.warmup);
const runs = Number(options.runs);
if (!(duration > 0) || !(warmup >= 0) || !Number.isInteger(runs) || runs < 1) throw new Error('--duration must be positive, --warmup at least 0 and --runs a whole number of at least 1');
const connectionLevels = options.connections!.split(',').map(Number);
if (connectionLevels.some((c) => !Number.isInteger(c) || c < 1)) throw new Error(`--connections must be whole numbers, got "${options.connections}"`);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A compiled entry point of this project (`dist/<entry>.js`) when built (realistic numbers), else its source through tsx. */
function nodeArgs(entry: string, ...args: string[]): string[] {
  if (existsSync(path.join(PROJECT_ROOT, 'dist/api/server.js'))) return [path.join(PROJECT_ROOT, `dist/${entry}.js`), ...args];
  log('dist/ has no API build: running it through tsx (npm run build first for realistic numbers)');
  return ['--import', 'tsx', path.join(PROJECT_ROOT, `${entry}.ts`), ...args];
}

/** Starts a server process on `port` and resolves once it prints `listening`. */
async function startServer(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NORDPROP_ENV_FILE: '',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      NORDPROP_API_BASE_URL: `http://127.0.0.1:${port}`,
      NORDPROP_API_MASTER_KEY: randomBytes(32).toString('base64'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
  });
  child.stdout!.resume();
  return child;
}

/** wrk on the paths in turn (bench/wrk-paths.lua), its figures read from the JSON line the script prints. */
async function loadGenerator(baseUrl: string, token: string, paths: string[], connections: number, seconds: number): Promise<Measurement> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-wrk-'));
  try {
    const pathsFile = path.join(dir, 'paths.txt');
    await writeFile(pathsFile, `${paths.join('\n')}\n`);
    const { stdout } = await run(
      'wrk',
      ['-t', String(Math.min(2, connections)), '-c', String(connections), '-d', `${seconds}s`, '-H', `Authorization: Bearer ${token}`, '-s', path.join(PROJECT_ROOT, 'bench/wrk-paths.lua'), baseUrl],
      { env: { ...process.env, NORDPROP_BENCH_PATHS: pathsFile }, maxBuffer: 16 * 1024 * 1024 },
    );
    const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
    const figures = JSON.parse(line) as { requests: number; durationUs: number; p50Us: number; p99Us: number; errors: number };
    return { requestsPerSecond: figures.requests / (figures.durationUs / 1e6), p50Ms: figures.p50Us / 1000, p99Ms: figures.p99Us / 1000, errors: figures.errors, requests: figures.requests };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** pgbench of one statement, with per-transaction latencies logged for the percentiles. */
async function pgbench(script: string, connections: number, seconds: number): Promise<Measurement> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-pgbench-'));
  try {
    const file = path.join(dir, 'script.sql');
    await writeFile(file, script);
    const { stdout } = await run('pgbench', ['-n', '-M', 'prepared', '-c', String(connections), '-j', '2', '-T', String(seconds), '-f', file, '-l', '--log-prefix', path.join(dir, 'tx'), databaseUrl], {
      maxBuffer: 64 * 1024 * 1024,
      // The hot lookups' session settings: the same SQL, planned the way the API's sessions plan it.
      env: { ...process.env, PGOPTIONS: SESSION_OPTIONS['api-lookup'] ?? '' },
    });
    const tps = Number(/tps = ([0-9.]+)/.exec(stdout)?.[1]);
    const transactions = Number(/number of transactions actually processed: ([0-9]+)/.exec(stdout)?.[1] ?? 0);
    const latencies: number[] = [];
    for (const name of (await readdir(dir)).filter((n) => n.startsWith('tx'))) {
      for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
        const micros = Number(line.split(' ')[2]);
        if (Number.isFinite(micros)) latencies.push(micros / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    return { requestsPerSecond: tps, p50Ms: at(0.5), p99Ms: at(0.99), errors: 0, requests: transactions };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A warm-up of `--warmup` seconds, then `--runs` measurements of `--duration`: each figure their median. */
async function measured(measure: (seconds: number) => Promise<Measurement>): Promise<Measurement> {
  if (warmup > 0) await measure(warmup);
  const all: Measurement[] = [];
  for (let i = 0; i < runs; i++) all.push(await measure(duration));
  const median = (pick: (m: Measurement) => number) => spread(all.map(pick)).median;
  const withCpu = all.filter((m) => m.cpu);
  const cpuMedian = (pick: (cpu: CpuShare) => number | undefined) => {
    const values = withCpu.map((m) => pick(m.cpu!)).filter((v): v is number => v !== undefined);
    return values.length ? spread(values).median : undefined;
  };
  const postgresMs = cpuMedian((cpu) => cpu.postgresMsPerRequest);
  const serverMs = cpuMedian((cpu) => cpu.serverMsPerRequest);
  return {
    requestsPerSecond: median((m) => m.requestsPerSecond),
    p50Ms: median((m) => m.p50Ms),
    p99Ms: median((m) => m.p99Ms),
    errors: all.reduce((sum, m) => sum + m.errors, 0),
    requests: all.reduce((sum, m) => sum + m.requests, 0),
    ...(postgresMs === undefined ? {} : { cpu: { postgresMsPerRequest: postgresMs, ...(serverMs === undefined ? {} : { serverMsPerRequest: serverMs }) } }),
  };
}

/** The store's SQL with its parameters as pgbench variables. */
const asPgbench = (sql: string, replacements: [RegExp, string][]) => replacements.reduce((text, [from, to]) => text.replace(from, to), sql).trim();

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const points = Number(options.points);
  log(`sampling ${points} address points and properties from ${databaseUrl.replace(/\/\/[^@]*@/, '//')}`);
  await pool.query(`DROP TABLE IF EXISTS api_bench_point; DROP TABLE IF EXISTS api_bench_property`);
  await pool.query(
    `CREATE UNLOGGED TABLE api_bench_point AS
     SELECT row_number() OVER () AS i, ST_Y(geom) AS lat, ST_X(geom) AS lon FROM (SELECT geom FROM address WHERE country = 'NO' ORDER BY random() LIMIT $1) s`,
    [points],
  );
  await pool.query(
    `CREATE UNLOGGED TABLE api_bench_property AS
     SELECT row_number() OVER () AS i, cadastre_id FROM (SELECT DISTINCT cadastre_id FROM parcel_property WHERE country = 'NO' ORDER BY 1 LIMIT $1) s`,
    [points],
  );
  await pool.query(`ALTER TABLE api_bench_point ADD PRIMARY KEY (i); ALTER TABLE api_bench_property ADD PRIMARY KEY (i); ANALYZE api_bench_point; ANALYZE api_bench_property`);
  const pointRows = (await pool.query(`SELECT round(lat::numeric, 7) AS lat, round(lon::numeric, 7) AS lon FROM api_bench_point ORDER BY i`)).rows;
  const propertyRows = (await pool.query(`SELECT cadastre_id FROM api_bench_property ORDER BY i`)).rows;
  if (!pointRows.length || !propertyRows.length) throw new Error('the store has no Norwegian addresses or parcels: load it first (npm run demo or npm run bench)');

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = await createClient(pool, { scopes: ['properties.read'], tier: 'enterprise', sandbox: false, name: 'api-bench', dailyCallLimit: 2_000_000_000, burstLimit: 1_000_000 });
  const api = await startServer(nodeArgs('cli/main', 'api'), port);
  const floorPort = await freePort();
  const floor = await startServer(nodeArgs('bench/http-floor'), floorPort);
  try {
    const token = await fetch(`${baseUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    const loadAtStart = os.loadavg();
    const coordinatePaths = pointRows.map((p) => `/coordinates/NO/${p.lat}/${p.lon}`);
    const propertyPaths = propertyRows.map((p) => `/properties/NO/${p.cadastre_id}`);

    const coordinateScript =
      `\\set i random(1, ${pointRows.length})\nSELECT lat, lon FROM api_bench_point WHERE i = :i \\gset\n` +
      `${asPgbench(countryStatement(COORDINATE_SQL, 'NO'), [[/\$1\b/g, ':lat'], [/\$2\b/g, ':lon']]).replace(/\s+/g, ' ')};\n`;
    const propertyScript =
      `\\set i random(1, ${propertyRows.length})\nSELECT cadastre_id AS id FROM api_bench_property WHERE i = :i \\gset\n` +
      `${asPgbench(countryStatement(PROPERTY_SQL, 'NO'), [[/\$1::text\[\]/g, 'ARRAY[:id]::text[]'], [/\$2\b/g, 'false']]).replace(/\s+/g, ' ')};\n`;
    // CPU per request of the server measured and of the backends of the benchmark's database that
    // serve the two servers (the idle one's sessions add next to nothing). Not for pgbench: its
    // sessions end with it, before their CPU can be read.
    const database = (await pool.query<{ name: string }>(`SELECT current_database() AS name`)).rows[0].name;
    const apiBackends = () => backendPids(pool, database, 'nordprop-api');
    const withCpu = async (work: () => Promise<Measurement>, backends: () => Promise<number[]>, serverPid?: number): Promise<Measurement> => {
      const { result, cpu } = await measureCpu(work, backends, serverPid);
      return cpu ? { ...result, cpu } : result;
    };
    const levels: Level[] = [];
    for (const connections of connectionLevels) {
      log(`${connections} connections, ${runs} × ${duration} s each after ${warmup} s of warm-up: GET /coordinates, its pgbench, GET /properties, its pgbench`);
      levels.push({
        connections,
        coordinatesApi: await measured((seconds) => withCpu(() => loadGenerator(baseUrl, token, coordinatePaths, connections, seconds), apiBackends, api.pid)),
        coordinatesFloor: await measured((seconds) => withCpu(() => loadGenerator(`http://127.0.0.1:${floorPort}`, token, coordinatePaths, connections, seconds), apiBackends, floor.pid)),
        coordinatesSql: await measured((seconds) => pgbench(coordinateScript, connections, seconds)),
        propertyApi: await measured((seconds) => withCpu(() => loadGenerator(baseUrl, token, propertyPaths, connections, seconds), apiBackends, api.pid)),
        propertySql: await measured((seconds) => pgbench(propertyScript, connections, seconds)),
      });
    }
    const counts = (await pool.query(`SELECT (SELECT count(*) FROM parcel)::int AS parcels, (SELECT count(*) FROM address)::int AS addresses`)).rows[0];
    const report = render(levels, counts, loadAtStart, transportOf(databaseUrl));
    await mkdir(path.join(PROJECT_ROOT, '.data/bench'), { recursive: true });
    await writeFile(path.join(PROJECT_ROOT, '.data/bench/api-load.md'), report);
    process.stdout.write(report);
    if (options.report) await replaceSection(path.resolve(options.report), 'api-benchmark', report);
    else if (options['write-benchmarks']) await replaceSection(path.join(PROJECT_ROOT, 'BENCHMARKS.md'), 'api-benchmark', report);
  } finally {
    api.kill('SIGTERM');
    floor.kill('SIGTERM');
    // One statement per query: with a parameter the driver prepares it, and a prepared query
    // holds one command (three in one failed, and the catch hid it: the client and tables stayed).
    await pool.query(`DROP TABLE IF EXISTS api_bench_point, api_bench_property`).catch((error) => log(`could not drop the sample tables: ${error.message}`));
    await pool.query(`DELETE FROM api_client WHERE client_id = $1`, [client.clientId]).catch((error) => log(`could not delete the benchmark's client: ${error.message}`));
    await pool.end();
  }
}

interface Level {
  connections: number;
  coordinatesApi: Measurement;
  /** The same SQL behind a bare node:http server (bench/http-floor.ts). */
  coordinatesFloor: Measurement;
  coordinatesSql: Measurement;
  propertyApi: Measurement;
  propertySql: Measurement;
}

/** How the API and pgbench reach PostgreSQL: a directory as the host (`?host=/var/run/postgresql`) is a Unix-domain socket. */
function transportOf(url: string): string {
  const host = decodeURIComponent(/[?&]host=([^&]+)/.exec(url)?.[1] ?? /^[a-z]+:\/\/(?:[^@/]*@)?([^:/?]*)/i.exec(url)?.[1] ?? '');
  if (!host) return 'each client\'s default connection (no host in the URL)';
  return host.startsWith('/') ? `the Unix-domain socket in ${host}` : `TCP to ${host}`;
}

/** The API's CPU per request beyond the bare server's, by process, when both were measured. */
function cpuGap(api: Measurement, floor: Measurement): string {
  const server = api.cpu?.serverMsPerRequest !== undefined && floor.cpu?.serverMsPerRequest !== undefined ? api.cpu.serverMsPerRequest - floor.cpu.serverMsPerRequest : undefined;
  const postgres = api.cpu && floor.cpu ? api.cpu.postgresMsPerRequest - floor.cpu.postgresMsPerRequest : undefined;
  if (server === undefined || postgres === undefined) return '';
  return ` Per coordinate request the API used ${server.toFixed(2)} ms more CPU in its process than the bare server and ${postgres.toFixed(2)} ms more in PostgreSQL (where a call is counted: one in 33 for this client, far from its limits).`;
}

function render(levels: Level[], counts: { parcels: number; addresses: number }, loadAtStart: number[], transport: string): string {
  const ms = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(3));
  const row = (connections: number, what: string, x: Measurement) =>
    `| ${connections} | ${what} | ${x.requestsPerSecond.toFixed(0)} | ${x.p50Ms.toFixed(2)} | ${x.p99Ms.toFixed(2)} | ${x.errors} | ${ms(x.cpu?.serverMsPerRequest)} | ${ms(x.cpu?.postgresMsPerRequest)} |`;
  const share = (api: Measurement, sql: Measurement) => `${((api.requestsPerSecond / sql.requestsPerSecond) * 100).toFixed(0)}%`;
  const verdict = (l: Level) =>
    `- ${coordinateVerdict({ connections: l.connections, api: l.coordinatesApi, floor: l.coordinatesFloor, pgbench: l.coordinatesSql })} Properties at ${share(l.propertyApi, l.propertySql)} of pgbench.` +
    cpuGap(l.coordinatesApi, l.coordinatesFloor);
  return [
    '<!-- api-benchmark:start -->',
    '## REST API on loopback',
    '',
    `${counts.parcels.toLocaleString('en')} parcels, ${counts.addresses.toLocaleString('en')} addresses; each figure the median of ${runs} measurement(s) of ${duration} s, each kind of load first run ${warmup} s unmeasured (connections opened, statements prepared, pages cached); ${os.cpus().length} cores shared by the API process, PostgreSQL and the load generator; load average ${loadAtStart.map((l) => l.toFixed(1)).join(' / ')} at the start (anything well above 0 means other work shared the machine).`,
    'The API does per request: the token (cached in the process), then the read. The benchmark\'s client is far from its limits, so its calls are answered ahead of their count (api/limits/calls-ahead.ts): one request in 33 reads the answer and counts itself and the 32 before it in one statement (rate window and day; api/limits/counted-read.ts). The load generator is wrk, cycling through real address points and properties.',
    'pgbench runs the same read SQL, without the count, with prepared statements and the session settings of the API\'s lookups (no parallel workers, no JIT, always the generic plan; lib/db.ts), plus a primary-key read of the random point or property per transaction.',
    'The bare node:http server (bench/http-floor.ts) runs the coordinate SQL on the same pool settings and sends its row as JSON text rendered by PostgreSQL (row_to_json), nothing else: the floor of any Node.js API on this machine. The gap from pgbench to it is HTTP and the driver, the gap from it to the API is the token, the count, validation and the response\'s shaping.',
    `All three reach PostgreSQL over ${transport} (the benchmark's --database-url); wrk reaches the servers over TCP on loopback.`,
    'Each is measured at a few concurrency levels: with 32 connections on 2 cores every request queues behind the others, and even the bare query cannot answer within 10 ms; the lower level is the latency a client sees on a machine that is not saturated.',
    'The CPU columns are the user and system time per request (from /proc, medians like the rest) of the server process measured and of the PostgreSQL sessions serving it: where the API\'s time beyond the bare server goes, its own JavaScript or the statements it runs (–: not measured, pgbench\'s sessions end before they can be read).',
    '',
    '| connections | what | requests/s | p50 ms | p99 ms | errors | server CPU ms/request | PostgreSQL CPU ms/request |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
    ...levels.flatMap((l) => [
      row(l.connections, 'GET /coordinates/NO/{lat}/{lon} (wrk)', l.coordinatesApi),
      row(l.connections, 'the same SQL behind a bare node:http server (wrk; no token, count or validation)', l.coordinatesFloor),
      row(l.connections, 'coordinate lookup SQL (pgbench)', l.coordinatesSql),
      row(l.connections, 'GET /properties/NO/{cadastreId} (wrk)', l.propertyApi),
      row(l.connections, 'property SQL (pgbench)', l.propertySql),
    ]),
    '',
    ...levels.map(verdict),
    '<!-- api-benchmark:end -->',
    '',
  ].join('\n');
}

await main();
