import { Client, Connection } from '@temporalio/client';
import type { Config } from '../../lib/config.js';

/**
 * One read-only Temporal client for the console, connected on first use (the API runs without
 * Temporal until someone opens the running page). A failed connection is tried again next time;
 * until then the page says why it has no progress.
 */
export function temporalReader(config: Pick<Config, 'temporalAddress' | 'temporalNamespace'>): { get(): Promise<Client | string>; close(): Promise<void> } {
  let connecting: Promise<Connection> | undefined;
  return {
    async get() {
      connecting ??= Connection.connect({ address: config.temporalAddress, connectTimeout: '3s' });
      try {
        return new Client({ connection: await connecting, namespace: config.temporalNamespace });
      } catch (error) {
        connecting = undefined;
        return `Temporal at ${config.temporalAddress} did not answer (${(error as Error).message.split('\n')[0]})`;
      }
    },
    async close() {
      const connection = await connecting?.catch(() => undefined);
      await connection?.close();
    },
  };
}
