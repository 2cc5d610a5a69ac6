import { loadConfig } from '../../lib/config.js';
import { startApiServer } from '../../api/server.js';

/** `nordprop api`: serve the REST API on PORT (default 8080) until SIGINT/SIGTERM. */
export async function apiCommand(options: { port?: string }): Promise<number> {
  const config = loadConfig();
  if (options.port !== undefined) {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      console.error(`--port ${options.port} is not a TCP port`);
      return 2;
    }
    config.api.port = port;
    if (!process.env.NORDPROP_API_BASE_URL) config.api.baseUrl = `http://127.0.0.1:${port}`;
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
