import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode } from '@temporalio/worker';
import { migrate } from '../lib/migrate.js';
import { PROJECT_ROOT } from '../lib/config.js';
import { createDatabase, databaseUrlFor, dropDatabase } from '../lib/database-admin.js';
import { startTemporalServer } from '../lib/temporal/dev-server.js';

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

const TEMPLATE_URL = databaseUrlFor(ADMIN_URL, TEMPLATE);

async function createTemplate(): Promise<void> {
  await dropDatabase(TEMPLATE_URL);
  await createDatabase(TEMPLATE_URL);
  await migrate(TEMPLATE_URL);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [temporal, template, bundle] = await Promise.allSettled([
    startTemporalServer(),
    createTemplate(),
    bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'workflows/index.ts'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never }),
  ]);
  if (temporal.status === 'rejected' || template.status === 'rejected' || bundle.status === 'rejected') {
    // Vitest runs no teardown for a setup that threw: what did start goes now, not left behind
    // (a template database per failed run, a dev server holding its port).
    if (temporal.status === 'fulfilled') await temporal.value.stop().catch(() => undefined);
    await dropDatabase(TEMPLATE_URL).catch(() => undefined);
    throw [temporal, template, bundle].flatMap((result) => (result.status === 'rejected' ? [result.reason] : []))[0];
  }
  const server = temporal.value;
  const bundleDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-bundle-'));
  const bundlePath = path.join(bundleDir, 'workflow-bundle.js');
  await writeFile(bundlePath, bundle.value.code);
  project.provide('temporalAddress', server.address);
  project.provide('templateDatabase', TEMPLATE);
  project.provide('adminDatabaseUrl', ADMIN_URL);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await server.stop();
    await dropDatabase(TEMPLATE_URL);
    await rm(bundleDir, { recursive: true, force: true });
  };
}
