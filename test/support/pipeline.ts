import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { closePools, getPool } from '../../lib/db.js';
import { createWorker } from '../../worker/pipeline-worker.js';
import { loadConfig } from '../../lib/config.js';
import { createTestDatabase } from './database.js';

export interface TestPipeline {
  client: Client;
  taskQueue: string;
  dataDir: string;
  databaseUrl: string;
  pool: ReturnType<typeof getPool>;
  stop(): Promise<void>;
}

/**
 * A real worker on the shared dev server, polling a task queue of this file's own, with a
 * database and data folder of its own. Configuration goes through the environment, exactly as
 * in production.
 */
let runtimeInstalled = false;

export async function startPipeline(env: Record<string, string> = {}): Promise<TestPipeline> {
  if (!runtimeInstalled) {
    // Worker lifecycle chatter hides test output; keep warnings and errors.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-test-'));
  const taskQueue = `nordprop-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    NORDPROP_TASK_QUEUE: taskQueue,
    NORDPROP_DATA_DIR: dataDir,
    ...env,
  });
  const config = loadConfig();
  const nativeConnection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await createWorker({ config, connection: nativeConnection, workflowBundle: { codePath: inject('workflowBundlePath') } });
  const running = worker.run();
  const connection = await Connection.connect({ address: config.temporalAddress });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  return {
    client,
    taskQueue,
    dataDir,
    databaseUrl: database.url,
    pool: getPool(database.url),
    async stop() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await closePools();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
