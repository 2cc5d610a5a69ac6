import { getPool } from '../../lib/db.js';
import { createClient, listClients } from '../../api/auth/clients.js';
import { parseScopes } from '../../api/auth/scopes.js';
import { TIER_NAMES, type Tier } from '../../api/auth/tiers.js';
import { printJson, printTable } from '../output.js';

export async function createClientCommand(options: {
  scopes: string;
  tier: string;
  sandbox: boolean;
  name?: string;
  dailyLimit?: string;
  burstLimit?: string;
  json: boolean;
}): Promise<number> {
  const { scopes, unknown } = parseScopes(options.scopes);
  if (unknown.length || !scopes.length) {
    console.error(`unknown scope(s): ${unknown.join(' ') || '(none given)'}; known: properties.read companies.read owners.read areas.read subscriptions.write`);
    return 2;
  }
  if (!TIER_NAMES.includes(options.tier as Tier)) {
    console.error(`unknown tier "${options.tier}"; known: ${TIER_NAMES.join(', ')}`);
    return 2;
  }
  const limit = (text: string | undefined, flag: string) => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} ${text} is not a positive integer`);
    return value;
  };
  const issued = await createClient(getPool(), {
    scopes,
    tier: options.tier as Tier,
    sandbox: options.sandbox,
    name: options.name,
    dailyCallLimit: limit(options.dailyLimit, '--daily-limit'),
    burstLimit: limit(options.burstLimit, '--burst-limit'),
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
