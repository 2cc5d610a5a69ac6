import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { createTestDatabase } from '../support/database.js';

const run = promisify(execFile);

/** The pids of the processes in session `sid` (the demo starts each service in a session of its own). */
async function session(sid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[3]) === sid && fields[0] !== 'Z') pids.push(Number(entry));
  }
  return pids;
}

it('the demo records the worker process itself in its pid file, so killing that pid leaves no worker behind', { timeout: 240_000 }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-demo-worker-'));
  const database = await createTestDatabase();
  const pidfile = path.join(dir, 'worker.pid');
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    NORDPROP_TASK_QUEUE: `nordprop-demo-worker-${process.pid}`,
    NORDPROP_DATA_DIR: dir,
    NORDPROP_ENV_FILE: '',
  };
  const shell = (script: string) => run('bash', ['-c', `source scripts/lib.sh && ${script}`, '_', pidfile, path.join(dir, 'worker.log')], { cwd: PROJECT_ROOT, env });
  let pid = 0;
  try {
    // The helper scripts/demo.sh starts its worker with.
    await shell('demo_worker_start "$1" "$2"');
    pid = Number((await readFile(pidfile, 'utf8')).trim());
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    expect(cmdline.slice(-2)).toEqual(['bin/nordprop.js', 'worker']);
    // Not a wrapper waiting for the worker: the process of the pid file runs it, alone in its session.
    expect(await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).toBe('');
    expect(await session(pid)).toEqual([pid]);

    // What anyone may do with a pid file, even the hard way.
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50 && (await session(pid)).length; i++) await sleep(100);
    expect(await session(pid)).toEqual([]);
  } finally {
    await shell('background_service_stop "$1"').catch(() => undefined);
    // Whatever the pid file did not name (a worker orphaned by its wrapper) goes too.
    if (pid) for (const orphan of await session(pid)) process.kill(orphan, 'SIGKILL');
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
});
