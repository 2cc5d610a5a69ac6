import { freePort } from '../../../lib/net/free-port.js';
import { startServerProcess } from '../../support/server-process.js';
import type { ApiTest } from './api-test.js';

export interface SecondApi {
  url: string;
  /** SIGTERM (a graceful stop), or `signal`. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A second API process on the test's store (test/api/support/api-process.ts), for what must hold across processes. */
export async function startSecondApi(api: ApiTest): Promise<SecondApi> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await startServerProcess('test/api/support/api-process.ts', [], {
    DATABASE_URL: (api.db as unknown as { options: { connectionString: string } }).options.connectionString,
    PORT: String(port),
    NORDPROP_API_BASE_URL: url,
    NORDPROP_API_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
  });
  return { url, stop: async (signal) => void (await process.stop(signal)) };
}
