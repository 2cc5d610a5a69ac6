import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { getPool } from '../../lib/db.js';
import { deleteClient, disableClient, enableClient, rotateClientSecret, type LifecycleResult } from '../../api/auth/clients.js';
import { printJson } from '../output.js';

/**
 * `nordprop clients disable|enable|delete|rotate-secret ID`: what an operator does to a client
 * after `clients create`. Each change is one transaction with its revocation, and every API
 * process drops the client's cached tokens within about a second (api/auth/tokens.ts). Exit
 * code 1 when there is no such client (a deleted one included).
 */

/** A client id as `clients create` issues them: `np_live_…` or `np_test_…` and 20 hex digits. */
export function clientIdArgument(value: string): string {
  if (!/^np_(live|test)_[0-9a-f]{20}$/.test(value)) throw new InvalidArgumentError('expected a client id such as np_live_0123456789abcdef0123 (nordprop clients list)');
  return value;
}

type Status = 'disabled' | 'enabled' | 'deleted';

function report(result: LifecycleResult, status: Status, json: boolean, unchanged: string): number {
  if (json) printJson({ clientId: result.clientId, found: result.found, status: result.found ? status : null, changed: result.changed });
  if (!result.found) {
    console.error(`no client ${result.clientId} (nordprop clients list)`);
    return 1;
  }
  if (!json) console.log(result.changed ? `client ${result.clientId} ${status}` : `client ${result.clientId} ${unchanged}`);
  return 0;
}

export async function disableClientCommand(clientId: string, options: { json: boolean }): Promise<number> {
  return report(await disableClient(getPool(), clientId), 'disabled', options.json, 'was disabled already');
}

export async function enableClientCommand(clientId: string, options: { json: boolean }): Promise<number> {
  return report(await enableClient(getPool(), clientId), 'enabled', options.json, 'was not disabled');
}

export async function deleteClientCommand(clientId: string, options: { json: boolean }): Promise<number> {
  return report(await deleteClient(getPool(), clientId), 'deleted', options.json, 'was deleted already');
}

export async function rotateSecretCommand(clientId: string, options: { json: boolean }): Promise<number> {
  const rotated = await rotateClientSecret(getPool(), clientId);
  if (!rotated) {
    if (options.json) printJson({ clientId, found: false });
    console.error(`no client ${clientId} (nordprop clients list)`);
    return 1;
  }
  if (options.json) {
    printJson({ clientId: rotated.clientId, clientSecret: rotated.clientSecret });
    return 0;
  }
  console.log(`client id:     ${rotated.clientId}`);
  console.log(`client secret: ${rotated.clientSecret}   (shown once; only its hash is stored)`);
  console.log('tokens issued with the old secret stop working within a second');
  return 0;
}

/**
 * Adds the verbs to `nordprop clients` (cli/main.ts: `addClientLifecycleCommands(clients, run)`);
 * `run` sets the exit code from the action's result, as for the other verbs.
 */
export function addClientLifecycleCommands(clients: Command, run: (action: (...args: any[]) => Promise<number>) => (...args: any[]) => Promise<void>): void {
  const id = () => new Argument('<clientId>', 'the client id (nordprop clients list)').argParser(clientIdArgument);
  const json = () => new Option('--json', 'machine-readable output');
  clients
    .command('disable')
    .description('stop a client: its tokens stop working on every API process within a second, and it gets no new ones until enabled')
    .addArgument(id())
    .addOption(json())
    .action(run((clientId: string, o) => disableClientCommand(clientId, { json: !!o.json })));
  clients
    .command('enable')
    .description('let a disabled client request tokens again')
    .addArgument(id())
    .addOption(json())
    .action(run((clientId: string, o) => enableClientCommand(clientId, { json: !!o.json })));
  clients
    .command('delete')
    .description('delete a client with its tokens, subscriptions and stored responses; its tokens stop working within a second')
    .addArgument(id())
    .addOption(json())
    .action(run((clientId: string, o) => deleteClientCommand(clientId, { json: !!o.json })));
  clients
    .command('rotate-secret')
    .description('issue a new secret (shown once); tokens issued with the old one stop working within a second')
    .addArgument(id())
    .addOption(json())
    .action(run((clientId: string, o) => rotateSecretCommand(clientId, { json: !!o.json })));
}
