import { Argument, Command, CommanderError, Option } from 'commander';
import { closePools } from '../lib/db.js';
import { COUNTRIES } from '../lib/domain/country.js';
import { startRun } from './commands/run-workflow.js';
import { listRuns, showRun, watchRun } from './commands/runs.js';
import { listRejects } from './commands/rejects.js';
import { testAlertCommand } from './commands/alerts.js';
import { versionText } from './version.js';
import { scheduleCommand } from './commands/schedule.js';
import { setupCommand } from './commands/setup.js';
import { lookupCommand } from './commands/lookup.js';
import { DEFAULT_EVALUATION_REPORT, evaluateValuationsCommand } from './commands/evaluate-valuations.js';
import { workerCommand } from './commands/worker.js';
import { sampleCommand } from './commands/sample.js';
import { apiCommand } from './commands/api.js';
import { DEFAULT_OPS_PORT, opsCommand } from './commands/ops.js';
import { createClientCommand, listClientsCommand } from './commands/clients.js';
import { addClientLifecycleCommands } from './commands/client-lifecycle.js';
import { dispatchCommand, listDeliveriesCommand, showDeliveryCommand } from './commands/deliveries.js';
import { SOURCES } from '../sources/registry.js';
import { deriveCommand } from './commands/derive.js';
import { DEFAULT_TENANT_REPORT, evaluateTenantsCommand } from './commands/evaluate-tenants.js';
import { DATASET_IDS } from '../derive/registry.js';
import { MIN_SCALE, SAMPLE_PROFILES } from '../sample/profile.js';
import { TIER_NAMES } from '../api/auth/tiers.js';
import {
  calendarDate, datasetId, decimal, duration, existingFolder, inputPathOrUrl, latitude, ledgerSourceId, longitude, many, outcome, outputFile, outputFolder,
  positiveWholeNumber, RUN_OUTCOMES, runId, scopes, sha256Hex, sourceId, tcpPort, uuid, wholeNumber,
} from './arguments.js';
import { DEFAULT_RECONNECT_TIMEOUT_MS } from './wait-for-run.js';

/** Exit code of a command line that cannot be run (unknown option, bad value): nothing was started. */
const USAGE = 2;

const program = new Command('nordprop')
  .description('Nordic property registers into PostGIS, kept fresh by Temporal workflows')
  .showHelpAfterError('(add --help for the options)')
  // Options after a sub-command belong to it (`runs show ID --json`), not to `runs`.
  .enablePositionalOptions()
  // Commander's errors are thrown (and their exit code set below) instead of exiting, so the pools close.
  .exitOverride()
  .option('-V, --version', 'print the version (package.json) and the git commit');
// As commander's .version(), but the git commit is read only when asked for.
program.on('option:version', () => {
  const text = versionText();
  console.log(text);
  throw new CommanderError(0, 'commander.version', text);
});

let exitCode = 0;
const run = (action: (...args: any[]) => Promise<number>) => async (...args: any[]) => {
  exitCode = await action(...args);
};
const json = () => new Option('--json', 'machine-readable output');
const sourceIds = SOURCES.map((s) => s.id).join(', ');
const country = (description: string) => new Option('--country <country>', description).choices(COUNTRIES);
// As lib/config.ts reads the environment: an empty variable is an unset one.
if (process.env.NORDPROP_RECONNECT_TIMEOUT === '') delete process.env.NORDPROP_RECONNECT_TIMEOUT;
const reconnectTimeout = () =>
  new Option('--reconnect-timeout <duration>', 'with --wait: how long to keep retrying a Temporal server that stops answering, e.g. 90s, 10m, 1h')
    .env('NORDPROP_RECONNECT_TIMEOUT')
    .argParser(duration)
    .default(DEFAULT_RECONNECT_TIMEOUT_MS, '10m');

/** How many derived datasets one run computes at once (workflows/derive-order.ts). */
const deriveConcurrency = (flag: string) =>
  new Option(`${flag} <n>`, 'derived datasets computed at once (default 2; more where more workers and database cores serve the run)').argParser(wholeNumber({ min: 1, max: 64 }));

program
  .command('setup')
  .description('create the database, apply migrations, register Temporal search attributes')
  .option('--no-temporal', 'skip the Temporal part')
  .addOption(json())
  .action(run((o) => setupCommand({ json: !!o.json, temporal: o.temporal })));

program
  .command('refresh')
  .description('ingest sources from their configured inputs (what the nightly schedule runs)')
  .addOption(country('only this country'))
  .addOption(new Option('--source <id...>', `only these sources (${sourceIds})`).argParser(many(sourceId)))
  .option('--force', 'publish even if the snapshot shrank by more than 10%, and reload unchanged inputs (every line parsed again)')
  .addOption(deriveConcurrency('--derive-concurrency'))
  .option('--wait', 'wait for the run, showing progress, and print its summary')
  .addOption(reconnectTimeout())
  .addOption(json())
  .action(
    run((o, command: Command) => {
      const foreign = SOURCES.filter((s) => o.country && o.source?.includes(s.id) && s.country !== o.country).map((s) => s.id);
      if (foreign.length) command.error(`error: --source ${foreign.join(', ')}: not a source of --country ${o.country}`, { exitCode: USAGE });
      // A refresh of named sources computes no derived datasets (nightlyRefresh).
      if (o.source && o.deriveConcurrency !== undefined) {
        command.error('error: --derive-concurrency: a refresh of named sources (--source) computes no derived datasets; use nordprop derive --concurrency', { exitCode: USAGE });
      }
      return startRun({
        run: { kind: 'refresh', input: { country: o.country, sources: o.source, force: !!o.force, deriveConcurrency: o.deriveConcurrency } },
        wait: !!o.wait,
        reconnectTimeoutMs: o.reconnectTimeout,
        json: !!o.json,
      });
    }),
  );

program
  .command('backfill')
  .description('ingest one source from an explicit file or URL')
  .addOption(new Option('--source <id>', `the source (${sourceIds})`).argParser(sourceId).makeOptionMandatory())
  .addOption(new Option('--input <pathOrUrl>', 'file path (or file: URL) or http(s) URL of the register extract').argParser(inputPathOrUrl).makeOptionMandatory())
  .addOption(new Option('--sha256 <hex>', 'fail unless the input has this checksum (64 hex digits)').argParser(sha256Hex))
  .option('--force', 'publish even if the snapshot shrank by more than 10%, and reload an unchanged input (every line parsed again)')
  .option('--wait', 'wait for the run, showing progress, and print its summary')
  .addOption(reconnectTimeout())
  .addOption(json())
  .action(
    run((o) =>
      startRun({
        // --input is an http(s) URL or a local file's file: URL (cli/arguments.ts).
        run: { kind: 'backfill', input: { sourceId: o.source, input: o.input, expectedSha256: o.sha256, force: !!o.force } },
        wait: !!o.wait,
        reconnectTimeoutMs: o.reconnectTimeout,
        json: !!o.json,
      }),
    ),
  );

program
  .command('derive')
  .description('compute the derived datasets (what the nightly refresh runs after its sources)')
  .addOption(new Option('--dataset <id...>', `only these datasets (${DATASET_IDS.join(', ')}); repeatable`).argParser(many(datasetId)))
  .addOption(country('only this country'))
  .addOption(new Option('--as-of <date>', 'the day to compute for, YYYY-MM-DD (default today)').argParser(calendarDate))
  .addOption(deriveConcurrency('--concurrency'))
  .option('--wait', 'wait for the run and print its summary')
  .addOption(reconnectTimeout())
  .addOption(json())
  .action(
    run((o) =>
      deriveCommand({ datasets: o.dataset, country: o.country, asOf: o.asOf, concurrency: o.concurrency, wait: !!o.wait, reconnectTimeoutMs: o.reconnectTimeout, json: !!o.json }),
    ),
  );

program
  .command('evaluate-tenants')
  .description('score the tenants against the truth of the sample the store was loaded from, and write the report (docs/derived/tenant-evaluation.md)')
  .addOption(new Option('--sample <dir>', 'the sample folder the store was loaded from (its manifest names seed and size)').argParser(existingFolder).makeOptionMandatory())
  .addOption(new Option('--out <file>', 'write the report here (- for none)').argParser(outputFile).default(DEFAULT_TENANT_REPORT))
  .addOption(json())
  .action(run((o) => evaluateTenantsCommand({ sample: o.sample, out: o.out, json: !!o.json })));

const runs = program
  .command('runs')
  .description('recent runs from the run ledger, or one source\'s history (--source)')
  .addOption(new Option('--limit <n>', 'how many').argParser(wholeNumber({ min: 1, max: 10_000 })).default(20))
  .addOption(new Option('--source <id>', 'one source\'s runs, newest first, with its counts and phase durations (a source id, or a derived dataset\'s ledger id such as derive-no-tenants)').argParser(ledgerSourceId))
  .addOption(new Option('--since <date>', 'runs started on this day (YYYY-MM-DD, local time) or later').argParser(calendarDate))
  .addOption(
    new Option('--outcome <outcome...>', 'only these outcomes: succeeded, partial, failed, running; with --source also published, unchanged (then failed and running are the source\'s)').argParser(many(outcome)),
  )
  .addOption(json())
  .action(
    run((o, command: Command) => {
      const ofSources = (o.outcome ?? []).filter((value: string) => !(RUN_OUTCOMES as readonly string[]).includes(value));
      if (ofSources.length && !o.source) command.error(`error: --outcome ${ofSources.join(', ')}: a source's outcome, only with --source (a run's are ${RUN_OUTCOMES.join(', ')})`, { exitCode: USAGE });
      return listRuns({ limit: o.limit, json: !!o.json, source: o.source, since: o.since, outcomes: o.outcome });
    }),
  );
runs
  .command('show')
  .addArgument(new Argument('<runId>', 'the run id').argParser(runId))
  .description('one run: per source counts, phases in order, time waiting for a worker, per-table changes, errors, its alert, and its rejected rows')
  .addOption(new Option('--rejects <n>', 'how many rejected rows to list').argParser(wholeNumber({ min: 0, max: 100_000 })).default(20))
  .addOption(json())
  .action(run((id, o) => showRun(id, { json: !!o.json, rejects: o.rejects })));
runs
  .command('watch')
  .addArgument(new Argument('<runId>', 'the run id').argParser(runId))
  .description('follow a run started elsewhere (the schedule, another shell): progress, then its summary; exits as --wait does')
  .addOption(reconnectTimeout())
  .addOption(json())
  .action(run((id, o) => watchRun(id, { json: !!o.json, reconnectTimeoutMs: o.reconnectTimeout })));

program
  .command('rejects')
  .description('rejected and repaired rows from the ledger: run, source, position in the file, reason and raw text')
  .addOption(new Option('--run <id>', 'only this run (in file order)').argParser(runId))
  .addOption(new Option('--source <id>', 'only this source').argParser(ledgerSourceId))
  .option('--reason <text>', 'only reasons containing this text (any case)')
  .addOption(new Option('--limit <n>', 'how many').argParser(wholeNumber({ min: 1, max: 100_000 })).default(50))
  .addOption(json())
  .action(run((o) => listRejects({ run: o.run, source: o.source, reason: o.reason, limit: o.limit, json: !!o.json })));

const alerts = program.command('alerts').description('alerts to the operator channel (NORDPROP_ALERT_WEBHOOK_URL) when a run ends partial or failed');
alerts
  .command('test')
  .description('post a test message to NORDPROP_ALERT_WEBHOOK_URL; exits 1 with the reason when it fails')
  .addOption(json())
  .action(run((o) => testAlertCommand({ json: !!o.json })));

program
  .command('schedule')
  .description('the nightly schedule: create | describe | pause | unpause | trigger')
  .addArgument(new Argument('<action>', 'what to do').choices(['create', 'describe', 'pause', 'unpause', 'trigger']))
  .addOption(deriveConcurrency('--derive-concurrency'))
  .addOption(json())
  .action(run((action, o) => scheduleCommand(action, { json: !!o.json, deriveConcurrency: o.deriveConcurrency })));

program
  .command('worker')
  .description('run a pipeline worker (activities and workflows) until interrupted')
  .action(run(() => workerCommand()));

program
  .command('sample')
  .description('write deterministic sample registers in the real formats')
  .addOption(new Option('--out <dir>', 'output folder').argParser(outputFolder).makeOptionMandatory())
  .addOption(new Option('--parcels <n>', 'parcels profile: Norwegian parcels and Swedish properties (≈3.4 addresses per parcel, mostly towns; default 5000)').argParser(positiveWholeNumber))
  .addOption(new Option('--profile <name>', 'parcels (default) or national: each register at its national size (2.6 M Norwegian addresses, 8 M Swedish buildings, …)').choices(SAMPLE_PROFILES))
  .addOption(new Option('--scale <s>', 'national profile: fraction of national size, e.g. 0.1 (default 1)').argParser(decimal({ min: MIN_SCALE, max: 1, what: `a fraction of national size from ${MIN_SCALE} to 1` })))
  .option('--seed <seed>', 'random seed', 'nordprop')
  .addOption(new Option('--night <n>', 'the registers n nights later: each night about 2 % of parcels and properties changed, removed or replaced (default 0: as generated)').argParser(wholeNumber({ min: 0 })))
  .addOption(json())
  .action(run((o) => sampleCommand({ out: o.out, parcels: o.parcels, profile: o.profile, scale: o.scale, seed: o.seed, night: o.night, json: !!o.json })));

program
  .command('lookup')
  .description('the parcel and property covering a WGS84 coordinate, with its addresses')
  .addOption(new Option('--lat <lat>', 'latitude, WGS84 degrees').argParser(latitude).makeOptionMandatory())
  .addOption(new Option('--lon <lon>', 'longitude, WGS84 degrees').argParser(longitude).makeOptionMandatory())
  .addOption(country('country').default('NO'))
  .addOption(json())
  .action(run((o) => lookupCommand({ lat: o.lat, lon: o.lon, country: o.country, json: !!o.json })));

program
  .command('evaluate-valuations')
  .description('judge the valuation model on held-out sales and write the report (docs/derived/valuation-evaluation.md)')
  .addOption(country('only this country'))
  .addOption(new Option('--as-of <date>', 'value as of this day (YYYY-MM-DD)').argParser(calendarDate).default(new Date().toISOString().slice(0, 10)))
  .addOption(new Option('--out <file>', 'write the report here (- for none)').argParser(outputFile).default(DEFAULT_EVALUATION_REPORT))
  .option('--sample <text>', 'what the database holds, for the report', 'on the registers loaded in the database')
  .addOption(json())
  .action(run((o) => evaluateValuationsCommand({ country: o.country, asOf: o.asOf, out: o.out, sample: o.sample, json: !!o.json })));

program
  .command('api')
  .description('serve the REST API on PORT (default 8080) until interrupted')
  .addOption(new Option('--port <port>', 'listen on this port instead of PORT').argParser(tcpPort))
  .action(run((o) => apiCommand({ port: o.port })));

program
  .command('ops')
  .description(`serve the ops console alone on its own port (default ${DEFAULT_OPS_PORT}) until interrupted; needs NORDPROP_OPS_TOKEN`)
  .addOption(new Option('--port <port>', 'listen on this port').argParser(tcpPort))
  .action(run((o) => opsCommand({ port: o.port })));

const clients = program.command('clients').description('API clients (OAuth 2.0 client credentials)');
clients
  .command('create')
  .description('issue a client id and secret (the secret is shown once)')
  .addOption(
    new Option('--scopes <scopes>', 'space-delimited: properties.read companies.read owners.read areas.read subscriptions.write').argParser(scopes).makeOptionMandatory(),
  )
  .addOption(new Option('--tier <tier>', 'the default limits').choices(TIER_NAMES).default('basic'))
  .option('--sandbox', 'test credentials: demo properties only')
  .option('--name <name>', 'who the client is for')
  .addOption(new Option('--daily-limit <n>', 'calls per UTC day (default: the tier\'s)').argParser(positiveWholeNumber))
  .addOption(new Option('--burst-limit <n>', 'requests per second (default: the tier\'s)').argParser(positiveWholeNumber))
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
addClientLifecycleCommands(clients, run);

const deliveries = program
  .command('deliveries')
  .description('webhook deliveries, newest first: event, subscription (and its status), state, attempts')
  .addOption(new Option('--subscription <id>', 'only this subscription (also once deleted)').argParser(uuid))
  .addOption(new Option('--limit <n>', 'how many').argParser(wholeNumber({ min: 1, max: 10_000 })).default(50))
  .addOption(json())
  .action(run((o) => listDeliveriesCommand({ subscription: o.subscription, limit: o.limit, json: !!o.json })));
deliveries
  .command('show')
  .addArgument(new Argument('<eventId>', 'the event id (a UUID)').argParser(uuid))
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
  if (error instanceof CommanderError) {
    // Commander has printed the message (or the help, or the version: exit code 0).
    exitCode = error.exitCode === 0 ? 0 : USAGE;
  } else {
    console.error(`nordprop: ${(error as Error).message}`);
    exitCode = 1;
  }
} finally {
  await closePools();
}
process.exitCode = exitCode;
