import { loadConfig } from '../../lib/config.js';
import { startApiServer } from '../../api/server.js';

/** `nordprop api`: serve the REST API on PORT (default 8080) until SIGINT/SIGTERM. */
export async function apiCommand(options: { port?: number }): Promise<number> {
  const config = loadConfig();
  if (options.port !== undefined) {
    config.api.port = options.port;
    if (!process.env.NORDPROP_API_BASE_URL) config.api.baseUrl = `http://127.0.0.1:${options.port}`;
  }
  const app = await startApiServer(config);
  console.log(`nordprop API listening on ${config.api.host}:${config.api.port} (${config.api.baseUrl}; description at ${config.api.baseUrl}/openapi.yaml)`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await app.close();
  return 0;
}
