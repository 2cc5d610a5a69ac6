import { Client, Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../config.js';

/** A Temporal client for the configured server; callers close `connection` when done. */
export async function connectClient(config: Config = loadConfig()): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: config.temporalAddress });
  return { client: new Client({ connection, namespace: config.temporalNamespace }), connection };
}
