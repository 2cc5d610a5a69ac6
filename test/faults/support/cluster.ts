import { execFile, execFileSync } from 'node:child_process';
import { appendFile, chmod, chown, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, onProcessExit } from './util.js';

/**
 * A PostgreSQL cluster of the fault suite's own: initdb into a temporary folder, started with
 * pg_ctl on a free port (its socket in that folder), so that an immediate stop and a start
 * disturb nothing else. Fast settings that keep crash semantics: fsync is off (a killed
 * postmaster leaves its writes in the OS cache, which survives), but every commit still writes
 * its WAL before returning (synchronous_commit stays on), and crash recovery resets UNLOGGED
 * tables exactly as in production.
 */

const run = promisify(execFile);
const PG_BIN = process.env.NORDPROP_FAULT_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/** initdb and pg_ctl refuse to run as root: run them as `postgres` then. */
function pgCommand(binary: string, args: string[]): [string, string[]] {
  const full = path.join(PG_BIN, binary);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
}

async function pg(binary: string, args: string[]): Promise<string> {
  const [command, argv] = pgCommand(binary, args);
  try {
    const { stdout, stderr } = await run(command, argv, { timeout: 120_000 });
    return stdout + stderr;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${binary} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

export interface Cluster {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  adminUrl: string;
  urlFor(database: string): string;
  /** `pg_ctl stop -m immediate` then start: crash recovery runs (and empties UNLOGGED tables). */
  crashRestart(): Promise<void>;
  stop(): Promise<void>;
  log(): Promise<string>;
}

export async function startCluster(dir: string): Promise<Cluster> {
  const root = path.join(dir, 'pg');
  const data = path.join(root, 'data');
  const logFile = path.join(root, 'server.log');
  await mkdir(root, { recursive: true });
  if (asRoot) {
    // mkdtemp makes the folder 0700: `postgres` must be able to reach its own folder inside.
    await chmod(dir, 0o755);
    const ids = (await run('id', ['-u', 'postgres'])).stdout.trim();
    const gid = (await run('id', ['-g', 'postgres'])).stdout.trim();
    await chown(root, Number(ids), Number(gid));
  }
  await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
  const port = await freePort();
  await appendFile(
    path.join(data, 'postgresql.conf'),
    [
      '',
      '# nordprop fault suite',
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${root}'`,
      'fsync = off',
      'full_page_writes = off',
      'shared_buffers = 128MB',
      'max_connections = 200',
      'max_locks_per_transaction = 256',
      // Crash recovery after an immediate stop is quick: checkpoint often enough.
      'max_wal_size = 1GB',
      `log_min_messages = warning`,
      '',
    ].join('\n'),
  );
  const ctl = (...args: string[]) => pg('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '120', ...args]);
  await ctl('start');
  let running = true;
  // A test run that dies without its afterAll must not leave a postmaster behind.
  const removeExitHook = onProcessExit(() => {
    const [command, argv] = pgCommand('pg_ctl', ['-D', data, 'stop', '-m', 'immediate']);
    try {
      execFileSync(command, argv, { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  });

  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    adminUrl,
    urlFor: (database) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    async crashRestart() {
      await ctl('stop', '-m', 'immediate');
      await ctl('start');
    },
    async stop() {
      if (!running) return;
      running = false;
      removeExitHook();
      await ctl('stop', '-m', 'immediate').catch(() => undefined);
    },
    log: () => readFile(logFile, 'utf8').catch(() => ''),
  };
}
