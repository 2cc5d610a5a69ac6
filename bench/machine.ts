import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import type pg from 'pg';

/** What the figures were measured on: hardware, OS, and the versions of everything in the path. */

const run = promisify(execFile);

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  kernel: string;
  node: string;
  postgres: string;
  postgis: string;
  gdal: string;
  /** PostgreSQL settings that bear on bulk loading, as the server runs them (not tuned by the benchmark). */
  postgresSettings: Record<string, string>;
  /**
   * How long the server had been up when the run began. Just after a restart its buffer pool is
   * cold, and on a VM the memory behind a large pool is faulted in as it is first touched
   * (docs/scaling.md, "The load-host settings, alternated on one host"): such a run is slower
   * for reasons that are not the code's. Absent in runs recorded before 2026-12-02.
   */
  serverUpSeconds?: number;
}

async function firstMatch(file: string, pattern: RegExp): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return pattern.exec(text)?.[1]?.trim();
}

async function gdalVersion(): Promise<string> {
  try {
    const { stdout } = await run('ogr2ogr', ['--version']);
    return stdout.trim().replace(/,\s*released.*$/, '');
  } catch {
    return 'not installed';
  }
}

/**
 * Every setting the README's "PostgreSQL on a load host" table suggests, and the others that bear
 * on a load, so a report says which of them it ran at (test/bench/machine.test.ts holds it to the table).
 */
export const LOAD_SETTINGS = [
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'maintenance_work_mem',
  'max_wal_size',
  'checkpoint_timeout',
  'wal_compression',
  'random_page_cost',
  'synchronous_commit',
  'wal_level',
  'max_parallel_maintenance_workers',
];

export async function machineInfo(pool: pg.Pool | pg.ClientBase): Promise<MachineInfo> {
  const [cpuModel, osName, gdal, versions, settings] = await Promise.all([
    firstMatch('/proc/cpuinfo', /^model name\s*:\s*(.+)$/m),
    firstMatch('/etc/os-release', /^PRETTY_NAME="?([^"\n]+)"?$/m),
    gdalVersion(),
    pool.query<{ postgres: string; postgis: string; up_seconds: number }>(
      `SELECT current_setting('server_version') AS postgres,
              postgis_lib_version() || ' (GEOS ' || postgis_geos_version() || ', PROJ ' || split_part(postgis_proj_version(), ' ', 1) || ')' AS postgis,
              extract(epoch FROM now() - pg_postmaster_start_time())::float8 AS up_seconds`,
    ),
    pool.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1) ORDER BY name`,
      [LOAD_SETTINGS],
    ),
  ]);
  return {
    cpuModel: cpuModel ?? os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: os.totalmem() / 2 ** 30,
    os: osName ?? `${os.type()} ${os.release()}`,
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: versions.rows[0].postgres,
    postgis: versions.rows[0].postgis,
    gdal,
    postgresSettings: Object.fromEntries(settings.rows.map((row) => [row.name, row.setting])),
    serverUpSeconds: versions.rows[0].up_seconds,
  };
}

/** "up 3 min", "up 2.5 h", "up 4.1 days": the server's uptime as a report prints it. */
export function serverUptime(seconds: number): string {
  if (seconds < 2 * 3600) return `up ${Math.round(seconds / 60)} min`;
  if (seconds < 2 * 86400) return `up ${(seconds / 3600).toFixed(1)} h`;
  return `up ${(seconds / 86400).toFixed(1)} days`;
}

/** 1, 5 and 15 minute load averages: other work on the machine during the run shows up here. */
export async function loadAverage(): Promise<string> {
  const text = await readFile('/proc/loadavg', 'utf8').catch(() => '');
  return text.split(' ').slice(0, 3).join(' ') || os.loadavg().map((v) => v.toFixed(2)).join(' ');
}
