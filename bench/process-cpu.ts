import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type pg from 'pg';

/**
 * CPU time the processes behind one measurement used, read from /proc (Linux): the server's own
 * process and the PostgreSQL backends serving it. Throughput alone says the API is slower than the
 * floor; these say where the time went (the server's JavaScript, or the statements it runs).
 */

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User plus system CPU milliseconds of a process so far; undefined once it is gone (or without /proc). */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
}

/** The backends of one database whose application_name starts with `prefix` (`nordprop-api`, `pgbench`). */
export async function backendPids(admin: pg.Pool, database: string, prefix: string): Promise<number[]> {
  const result = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND starts_with(application_name, $2)`, [database, prefix]);
  return result.rows.map((row) => row.pid);
}

export interface CpuShare {
  /** The server process's CPU per request, ms (undefined for pgbench: no server). */
  serverMsPerRequest?: number;
  /** The PostgreSQL backends' CPU per request, ms. */
  postgresMsPerRequest: number;
}

/**
 * Runs `work` (one measured load) and divides the CPU the server process and the backends used
 * meanwhile by the requests it reports. Backends are those present when it starts (after a
 * warm-up the pools hold their connections); one that ends meanwhile is left out of the sum.
 * Undefined without /proc.
 */
export async function measureCpu<T extends { requests: number }>(
  work: () => Promise<T>,
  backends: () => Promise<number[]>,
  serverPid?: number,
): Promise<{ result: T; cpu?: CpuShare }> {
  const pids = await backends();
  const before = await Promise.all(pids.map(processCpuMs));
  const serverBefore = serverPid === undefined ? undefined : await processCpuMs(serverPid);
  const result = await work();
  const after = await Promise.all(pids.map(processCpuMs));
  const serverAfter = serverPid === undefined ? undefined : await processCpuMs(serverPid);
  if (!pids.length || result.requests <= 0 || before.every((ms) => ms === undefined)) return { result };
  let postgresMs = 0;
  pids.forEach((_, i) => {
    if (before[i] !== undefined && after[i] !== undefined) postgresMs += after[i]! - before[i]!;
  });
  const server = serverBefore !== undefined && serverAfter !== undefined ? { serverMsPerRequest: (serverAfter - serverBefore) / result.requests } : {};
  return { result, cpu: { ...server, postgresMsPerRequest: postgresMs / result.requests } };
}
