import path from 'node:path';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { generateSample, sampleParcels, type SampleParcel } from '../../../sample/generate.js';
import { createTestDatabase } from '../../support/database.js';
import { startPipeline, type TestPipeline } from '../../support/pipeline.js';
import { runRefresh } from '../../support/runs.js';
import { loadFixture, startApiServer, type ApiServer } from './api-server.js';

export interface ApiTest {
  db: pg.Pool;
  server: ApiServer;
  baseUrl: string;
  /** With `pipeline`: the sample parcels (and their addresses) the refresh published. */
  sample: SampleParcel[];
  stop(): Promise<void>;
}

/**
 * A test database with the register fixtures for the tables no adapter fills in tests yet and,
 * with `pipeline`, the sample cadastre and addresses published through the real nightly refresh
 * (Temporal dev server and worker); then the API listening on loopback.
 */
export async function startApiTest(options: { pipeline?: { parcels: number; seed: string } } = {}): Promise<ApiTest> {
  let pipeline: TestPipeline | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  let db: pg.Pool;
  let sample: SampleParcel[] = [];
  if (options.pipeline) {
    pipeline = await startPipeline();
    const sampleDir = path.join(pipeline.dataDir, 'sample');
    process.env.NORDPROP_INPUT_DIR = sampleDir;
    await generateSample({ outDir: sampleDir, parcels: options.pipeline.parcels, seed: options.pipeline.seed });
    const summary = await runRefresh(pipeline.client, pipeline.taskQueue, { sources: ['no-cadastre', 'no-address'] });
    if (summary.outcome !== 'succeeded') throw new Error(`sample refresh ${summary.outcome}`);
    sample = [...sampleParcels({ parcels: options.pipeline.parcels, seed: options.pipeline.seed })];
    db = pipeline.pool;
  } else {
    const database = await createTestDatabase();
    dropDatabase = database.drop;
    db = getPool(database.url);
  }
  await loadFixture(db, 'no', 'api-registers.sql');
  await loadFixture(db, 'se', 'api-registers.sql');
  const server = await startApiServer(db);
  return {
    db,
    server,
    baseUrl: server.baseUrl,
    sample,
    async stop() {
      await server.close();
      if (pipeline) await pipeline.stop();
      else {
        await closePools();
        await dropDatabase?.();
      }
    },
  };
}
