import Fastify from 'fastify';
import { loadConfig } from '../../lib/config.js';
import { closePools, getPool } from '../../lib/db.js';
import { registerOpsConsole } from '../../api/ops/routes.js';
import { operatorSecret, OPS_TOKEN_VARIABLE } from '../../api/ops/operator-credential.js';

export const DEFAULT_OPS_PORT = 8081;

/**
 * `nordprop ops`: the ops console alone (the pages the API serves at /ops), on a port of its own,
 * for an operator who does not run the API or keeps it apart. Until SIGINT/SIGTERM.
 */
export async function opsCommand(options: { port?: number }): Promise<number> {
  if (!operatorSecret()) {
    console.error(`${OPS_TOKEN_VARIABLE} is not set: the console has no credential to ask for (docs/operations.md)`);
    return 1;
  }
  const config = loadConfig();
  const port = options.port ?? DEFAULT_OPS_PORT;
  const app = Fastify({ logger: false, trustProxy: false });
  registerOpsConsole(app, { db: getPool(config.databaseUrl, 'api'), config });
  await app.listen({ port, host: config.api.host });
  console.log(`nordprop ops console listening on http://${config.api.host}:${port}/ops (credential: ${OPS_TOKEN_VARIABLE})`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await app.close();
  await closePools();
  return 0;
}
