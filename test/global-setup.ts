import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import pg from 'pg';
import { migrate } from '../lib/migrate.js';
import { PROJECT_ROOT } from '../lib/config.js';
import { quoteIdent } from '../lib/db.js';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

/**
 * One real Temporal dev server and one migrated template database for the whole run; each
 * test file clones the template into a database of its own and polls its own task queue.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    templateDatabase: string;
    adminDatabaseUrl: string;
    workflowBundlePath: string;
  }
}

const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPLATE = `nordprop_test_template_${process.pid}`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitForTemporal(address: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`temporal dev server exited with ${server.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: '1s' });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      await connection.close();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`temporal dev server at ${address} not ready after ${timeoutMs} ms: ${String(lastError)}`);
}

async function startTemporal(): Promise<{ address: string; stop: () => Promise<void> }> {
  const binary = process.env.TEMPORAL_CLI ?? path.join(PROJECT_ROOT, '.tools/bin/temporal');
  if (!existsSync(binary)) throw new Error(`Temporal CLI not found at ${binary}; run \`npm test\` (scripts/test.sh builds it)`);
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = [
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'error',
    '--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true',
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
  ];
  const server = spawn(binary, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForTemporal(address, server, 60_000);
  return {
    address,
    stop: async () => {
      server.kill('SIGTERM');
      await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.once('exit', resolve)));
    },
  };
}

async function createTemplate(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(TEMPLATE)}`);
    await admin.query(`CREATE DATABASE ${quoteIdent(TEMPLATE)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${TEMPLATE}`;
  await migrate(url.toString());
}

async function dropTemplate(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(TEMPLATE)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [temporal, , bundle] = await Promise.all([
    startTemporal(),
    createTemplate(),
    bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'workflows/index.ts'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never }),
  ]);
  const bundleDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-bundle-'));
  const bundlePath = path.join(bundleDir, 'workflow-bundle.js');
  await writeFile(bundlePath, bundle.code);
  project.provide('temporalAddress', temporal.address);
  project.provide('templateDatabase', TEMPLATE);
  project.provide('adminDatabaseUrl', ADMIN_URL);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await temporal.stop();
    await dropTemplate();
    await rm(bundleDir, { recursive: true, force: true });
  };
}
