import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../lib/config.js';
import { getPool } from '../lib/db.js';
import { buildApp } from './app.js';
import { loadMasterKey } from '../lib/secrets/master-key.js';

/** Builds the app over the configured store and listens on `PORT` until closed. */
export async function startApiServer(config: Config = loadConfig(), options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const { app } = await buildApp({ db: getPool(config.databaseUrl, 'api'), lookups: getPool(config.databaseUrl, 'api-lookup'), config, masterKey: loadMasterKey(config), logger: options.logger ?? true });
  await app.listen({ port: config.api.port, host: config.api.host });
  return app;
}
