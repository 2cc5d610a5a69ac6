import { Command, Option } from 'commander';
import { closePools } from '../lib/db.js';
import { startRun } from './commands/run-workflow.js';
import { listRuns, showRun } from './commands/runs.js';
import { scheduleCommand } from './commands/schedule.js';
import { setupCommand } from './commands/setup.js';
import { lookupCommand } from './commands/lookup.js';
import { DEFAULT_EVALUATION_REPORT, evaluateValuationsCommand } from './commands/evaluate-valuations.js';
import { workerCommand } from './commands/worker.js';
import { sampleCommand } from './commands/sample.js';
import { apiCommand } from './commands/api.js';
import { createClientCommand, listClientsCommand } from './commands/clients.js';
import { dispatchCommand, listDeliveriesCommand, showDeliveryCommand } from './commands/deliveries.js';
import { SOURCES } from '../sources/registry.js';
import { deriveCommand } from './commands/derive.js';
import { DEFAULT_TENANT_REPORT, evaluateTenantsCommand } from './commands/evaluate-tenants.js';
import { DATASET_IDS } from '../derive/registry.js';

const program = new Command('nordprop')
  .description('Nordic property registers into PostGIS, kept fresh by Temporal workflows')
  .showHelpAfterError()
  // Options after a sub-command belong to it (`runs show ID --json`), not to `runs`.
  .enablePositionalOptions();

let exitCode = 0;
const run = (action: (...args: any[]) => Promise<number>) => async (...args: any[]) => {
  exitCode = await action(...args);
};
const json = () => new Option('--json', 'machine-readable output');
const sourceIds = SOURCES.map((s) => s.id).join(', ');

program
  .command('setup')
  .description('create the database, apply migrations, register Temporal search attributes')
  .option('--no-temporal', 'skip the Temporal part')
  .addOption(json())
  .action(run((o) => setupCommand({ json: !!o.json, temporal: o.temporal })));

program
  .command('refresh')
  .description('ingest sources from their configured inputs (what the nightly schedule runs)')
  .addOption(new Option('--country <country>', 'only this country').choices(['NO', 'SE']))
  .option('--source <id...>', `only these sources (${sourceIds})`)
  .option('--force', 'publish even if the snapshot shrank by more than 10%, and reload unchanged inputs')
  .option('--wait', 'wait for the run, showing progress, and print its summary')
  .addOption(json())
  .action(
    run((o) =>
      startRun({
        workflow: 'nightlyRefresh',
        workflowIdPrefix: 'refresh',
        args: { country: o.country, sources: o.source, force: !!o.force },
        sources: { country: o.country, sources: o.source },
        wait: !!o.wait,
        json: !!o.json,
      }),
    ),
  );

program
  .command('backfill')
  .description('ingest one source from an explicit file or URL')
  .requiredOption('--source <id>', `the source (${sourceIds})`)
  .requiredOption('--input <pathOrUrl>', 'file path or http(s) URL of the register extract')
  .option('--sha256 <hex>', 'fail unless the input has this checksum')
  .option('--force', 'publish even if the snapshot shrank by more than 10%, and reload an unchanged input')
  .option('--wait', 'wait for the run, showing progress, and print its summary')
  .addOption(json())
  .action(
    run((o) =>
      startRun({
        workflow: 'backfill',
        workflowIdPrefix: 'backfill',
        args: { sourceId: o.source, input: /^https?:/.test(o.input) ? o.input : new URL(o.input, `file://${process.cwd()}/`).pathname, expectedSha256: o.sha256, force: !!o.force },
        sources: { sources: [o.source] },
        wait: !!o.wait,
        json: !!o.json,
      }),
    ),
  );

program
  .command('derive')
  .description('compute the derived datasets (what the nightly refresh runs after its sources)')
  .option('--dataset <id...>', `only these datasets (${DATASET_IDS.join(', ')}); repeatable`)
  .addOption(new Option('--country <country>', 'only this country').choices(['NO', 'SE']))
  .option('--as-of <date>', 'the day to compute for, YYYY-MM-DD (default today)')
  .option('--wait', 'wait for the run and print its summary')
  .addOption(json())
  .action(run((o) => deriveCommand({ datasets: o.dataset, country: o.country, asOf: o.asOf, wait: !!o.wait, json: !!o.json })));

program
  .command('evaluate-tenants')
  .description('score the tenants against the truth of the sample the store was loaded from, and write the report (docs/derived/tenant-evaluation.md)')
  .requiredOption('--sample <dir>', 'the sample folder the store was loaded from (its manifest names seed and size)')
  .option('--out <file>', 'write the report here (- for none)', DEFAULT_TENANT_REPORT)
  .addOption(json())
  .action(run((o) => evaluateTenantsCommand({ sample: o.sample, out: o.out, json: !!o.json })));

const runs = program
  .command('runs')
  .description('list recent runs from the run ledger')
  .option('--limit <n>', 'how many', '20')
  .addOption(json())
  .action(run((o) => listRuns({ limit: Number(o.limit), json: !!o.json })));
runs
  .command('show <runId>')
  .description('one run: per source counts, phases, errors, and its rejected rows')
  .option('--rejects <n>', 'how many rejected rows to list', '20')
  .addOption(json())
  .action(run((runId, o) => showRun(runId, { json: !!o.json, rejects: Number(o.rejects) })));

program
  .command('schedule <action>')
  .description('the nightly schedule: create | describe | pause | unpause | trigger')
  .addOption(json())
  .action(run((action, o) => scheduleCommand(action, { json: !!o.json })));

program
  .command('worker')
  .description('run a pipeline worker (activities and workflows) until interrupted')
  .action(run(() => workerCommand()));

program
  .command('sample')
  .description('write deterministic sample registers in the real formats')
  .requiredOption('--out <dir>', 'output folder')
  .option('--parcels <n>', 'parcels profile: Norwegian parcels and Swedish properties (≈3.4 addresses per parcel, mostly towns; default 5000)')
  .option('--profile <name>', 'parcels (default) or national: each register at its national size (2.6 M Norwegian addresses, 8 M Swedish buildings, …)')
  .option('--scale <s>', 'national profile: fraction of national size, e.g. 0.1 (default 1)')
  .option('--seed <seed>', 'random seed', 'nordprop')
  .addOption(json())
  .action(run((o) => sampleCommand({ out: o.out, parcels: o.parcels, profile: o.profile, scale: o.scale, seed: o.seed, json: !!o.json })));

program
  .command('lookup')
  .description('the parcel and property covering a WGS84 coordinate, with its addresses')
  .requiredOption('--lat <lat>', 'latitude, WGS84 degrees')
  .requiredOption('--lon <lon>', 'longitude, WGS84 degrees')
  .addOption(new Option('--country <country>', 'country').choices(['NO', 'SE']).default('NO'))
  .addOption(json())
  .action(run((o) => lookupCommand({ lat: o.lat, lon: o.lon, country: o.country, json: !!o.json })));

program
  .command('evaluate-valuations')
  .description('judge the valuation model on held-out sales and write the report (docs/derived/valuation-evaluation.md)')
  .addOption(new Option('--country <country>', 'only this country').choices(['NO', 'SE']))
  .option('--as-of <date>', 'value as of this day (YYYY-MM-DD)', new Date().toISOString().slice(0, 10))
  .option('--out <file>', 'write the report here (- for none)', DEFAULT_EVALUATION_REPORT)
  .option('--sample <text>', 'what the database holds, for the report', 'on the registers loaded in the database')
  .addOption(json())
  .action(run((o) => evaluateValuationsCommand({ country: o.country, asOf: o.asOf, out: o.out, sample: o.sample, json: !!o.json })));

program
  .command('api')
  .description('serve the REST API on PORT (default 8080) until interrupted')
  .option('--port <port>', 'listen on this port instead of PORT')
  .action(run((o) => apiCommand({ port: o.port })));

const clients = program.command('clients').description('API clients (OAuth 2.0 client credentials)');
clients
  .command('create')
  .description('issue a client id and secret (the secret is shown once)')
  .requiredOption('--scopes <scopes>', 'space-delimited: properties.read companies.read owners.read areas.read subscriptions.write')
  .option('--tier <tier>', 'sandbox | basic | standard | enterprise', 'basic')
  .option('--sandbox', 'test credentials: demo properties only')
  .option('--name <name>', 'who the client is for')
  .option('--daily-limit <n>', 'calls per UTC day (default: the tier\'s)')
  .option('--burst-limit <n>', 'requests per second (default: the tier\'s)')
  .addOption(json())
  .action(
    run((o) =>
      createClientCommand({ scopes: o.scopes, tier: o.tier, sandbox: !!o.sandbox, name: o.name, dailyLimit: o.dailyLimit, burstLimit: o.burstLimit, json: !!o.json }),
    ),
  );
clients
  .command('list')
  .description('the API clients, with their calls today')
  .addOption(json())
  .action(run((o) => listClientsCommand({ json: !!o.json })));

const deliveries = program
  .command('deliveries')
  .description('webhook deliveries, newest first: event, subscription (and its status), state, attempts')
  .option('--subscription <id>', 'only this subscription (also once deleted)')
  .option('--limit <n>', 'how many', '50')
  .addOption(json())
  .action(run((o) => listDeliveriesCommand({ subscription: o.subscription, limit: Number(o.limit), json: !!o.json })));
deliveries
  .command('show <eventId>')
  .description('one delivery and each of its attempts')
  .addOption(json())
  .action(run((eventId, o) => showDeliveryCommand(eventId, { json: !!o.json })));
deliveries
  .command('dispatch')
  .description('start the deliveries of change events not dispatched yet (publishes do this themselves)')
  .addOption(json())
  .action(run((o) => dispatchCommand({ json: !!o.json })));

try {
  await program.parseAsync();
} catch (error) {
  console.error(`nordprop: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await closePools();
}
process.exitCode = exitCode;
