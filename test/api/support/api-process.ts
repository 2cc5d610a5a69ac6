import { loadConfig } from '../../../lib/config.js';
import { closePools } from '../../../lib/db.js';
import { startApiServer } from '../../../api/server.js';

/**
 * A second API process for tests of what must hold across processes (revocation, limits): the
 * server `nordprop api` runs (api/server.ts), configured by the environment (DATABASE_URL, PORT,
 * NORDPROP_API_MASTER_KEY). Prints `listening` once it is; SIGTERM stops it.
 */
const config = loadConfig();
const app = await startApiServer(config, { logger: false });
console.log(`test API process listening on ${config.api.baseUrl}`);
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => closePools())
    .finally(() => process.exit(0));
});
