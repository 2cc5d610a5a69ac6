import { getPool } from '../../lib/db.js';
import { createClient, listClients } from '../../api/auth/clients.js';
import type { Scope } from '../../api/auth/scopes.js';
import type { Tier } from '../../api/auth/tiers.js';
import { printJson, printTable } from '../output.js';

export async function createClientCommand(options: {
  /** Known scopes, at least one (cli/arguments.ts scopes). */
  scopes: Scope[];
  tier: Tier;
  sandbox: boolean;
  name?: string;
  dailyLimit?: number;
  burstLimit?: number;
  json: boolean;
}): Promise<number> {
  const issued = await createClient(getPool(), {
    scopes: options.scopes,
    tier: options.tier,
    sandbox: options.sandbox,
    name: options.name,
    dailyCallLimit: options.dailyLimit,
    burstLimit: options.burstLimit,
  });
  if (options.json) {
    printJson(issued);
    return 0;
  }
  console.log(`client id:     ${issued.clientId}`);
  console.log(`client secret: ${issued.clientSecret}   (shown once; only its hash is stored)`);
  console.log(`tier ${issued.tier}, scopes ${issued.scopes.join(' ')}, ${issued.dailyCallLimit} calls/day, ${issued.burstLimit} requests/s${issued.sandbox ? ', sandbox (demo properties only)' : ''}`);
  return 0;
}

export async function listClientsCommand(options: { json: boolean }): Promise<number> {
  const clients = await listClients(getPool());
  if (options.json) printJson(clients);
  else printTable(clients.map((c) => ({ ...c, scopes: c.scopes.join(' ') })), ['clientId', 'tier', 'sandbox', 'scopes', 'dailyCallLimit', 'callsToday', 'createdAt']);
  return 0;
}
