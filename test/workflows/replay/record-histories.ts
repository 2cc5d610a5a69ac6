/**
 * Records the histories replay.test.ts replays: every workflow of workflows/index.ts run for
 * real, by the real worker, against a Temporal dev server and a PostgreSQL database of this
 * script's own, over a small generated sample. Run it after an intentional workflow change that
 * old histories cannot replay (README "Changing a workflow"):
 *
 *   npx tsx test/workflows/replay/record-histories.ts
 *
 * It rewrites histories/ whole; commit the result with the workflow change.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startTemporalServer } from '../../../lib/temporal/dev-server.js';
import { createWorker } from '../../../worker/pipeline-worker.js';
import { loadConfig, PROJECT_ROOT } from '../../../lib/config.js';
import { closePools, getPool } from '../../../lib/db.js';
import { createDatabase, databaseUrlFor, dropDatabase } from '../../../lib/database-admin.js';
import { migrate } from '../../../lib/migrate.js';
import { deriveKey, loadMasterKey } from '../../../lib/secrets/master-key.js';
import { sealSecret } from '../../../lib/secrets/secret-box.js';
import { deliveryWorkflowId } from '../../../events/dispatch.js';
import { ADDRESS_CSV_ZIP, generateSample } from '../../../sample/generate.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../bench/webhooks-receiver.js';
import { alertWorkflowId } from '../../../workflows/alert.js';
import { deriveWorkflowId } from '../../../workflows/derive.js';
import { backfill, ingestWorkflowId, nightlyRefresh } from '../../../workflows/refresh.js';
import { deliverWebhook } from '../../../workflows/deliver-webhook.js';
import { historyToJsonText } from './history-json.js';

const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));
/** Which workflow id each history had (a history names none): replay passes it on, as the worker saw it. */
const WORKFLOW_IDS_FILE = 'workflow-ids.json';
const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const log = (message: string) => console.log(`[record-histories] ${message}`);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // Undone in reverse whatever step fails: no dev server, database or folder is left behind.
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-record-'));
    cleanups.push(() => rm(workDir, { recursive: true, force: true }));
    const receiver = await startWebhookReceiver({ dir: workDir, routes: { '/flaky': (n) => (n <= 2 ? 500 : 204), '/down': () => 503 } });
    cleanups.push(() => receiver.close());
    log('starting a Temporal dev server and a migrated database');
    const databaseUrl = databaseUrlFor(ADMIN_URL, `nordprop_record_${process.pid}`);
    cleanups.push(() => dropDatabase(databaseUrl));
    await createDatabase(databaseUrl);
    await migrate(databaseUrl);
    const temporal = await startTemporalServer(path.join(workDir, 'temporal.log'));
    cleanups.push(() => temporal.stop());
    // Configuration through the environment, as in production; never a developer's .env.
    Object.assign(process.env, {
      NORDPROP_ENV_FILE: '',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      NORDPROP_TASK_QUEUE: 'nordprop-record',
      NORDPROP_DATA_DIR: path.join(workDir, 'data'),
      NORDPROP_INPUT_DIR: path.join(workDir, 'sample'),
      NORDPROP_API_MASTER_KEY: randomBytes(32).toString('base64'),
      NORDPROP_WEBHOOK_CA_FILE: receiver.caFile,
      NORDPROP_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    });
    delete process.env.NORDPROP_ALERT_WEBHOOK_URL;
    cleanups.push(() => closePools());
    const config = loadConfig();
    const nativeConnection = await NativeConnection.connect({ address: temporal.address });
    cleanups.push(() => nativeConnection.close());
    // workflows/ bundled from its sources, as test/global-setup.ts bundles it for the suite's workers.
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'workflows/index.ts'), logger: new DefaultLogger('WARN') });
    const worker = await createWorker({ config, connection: nativeConnection, workflowBundle });
    const running = worker.run();
    cleanups.push(() => (worker.shutdown(), running.catch((error) => log(`worker: ${String(error)}`))));
    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push(() => connection.close());
    await recordAll(new Client({ connection }), config.taskQueue, workDir, receiver);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => log(`cleanup: ${String(error)}`));
  }
}

async function recordAll(client: Client, queue: string, workDir: string, receiver: WebhookReceiver): Promise<void> {
  // Kept in memory and written at the end: a recording that fails midway leaves histories/ as it was.
  const recorded = new Map<string, { workflowId: string; json: string }>();
  const record = async (name: string, workflowId: string) => {
    const handle = client.workflow.getHandle(workflowId);
    // A history is recorded closed, so replay covers the workflow to its end.
    await handle.result().catch(() => undefined);
    recorded.set(`${name}.json`, { workflowId, json: historyToJsonText(await handle.fetchHistory()) });
    log(`recorded ${name} (${workflowId})`);
  };
  const sample = await generateSample({ outDir: process.env.NORDPROP_INPUT_DIR!, parcels: 30, seed: 'replay-histories' });

  // The nightly refresh as the schedule starts it (no run id): every source, then the derive.
  log('nightly refresh over the sample (a few minutes)');
  const nightly = await client.workflow.execute(nightlyRefresh, { taskQueue: queue, workflowId: 'nightly-replay-sample', args: [{}] });
  if (nightly.outcome !== 'succeeded') throw new Error(`the sample's nightly refresh ended ${nightly.outcome}: ${JSON.stringify(nightly.sources.filter((s) => s.outcome !== 'published'))}`);
  await record('nightlyRefresh-sample', 'nightly-replay-sample');
  await record('ingestSource-published', ingestWorkflowId('no-cadastre', nightly.runId));
  await record('deriveDatasets-nightly-child', deriveWorkflowId(`${nightly.runId}-derive`));

  // The same input again: the download finds it unchanged, nothing is staged.
  const again = await client.workflow.execute(nightlyRefresh, { taskQueue: queue, workflowId: 'refresh-replay-unchanged', args: [{ runId: 'replay-unchanged', sources: ['no-cadastre'] }] });
  await record('nightlyRefresh-sources-unchanged', 'refresh-replay-unchanged');
  await record('ingestSource-unchanged', ingestWorkflowId('no-cadastre', again.runId));

  // A bad file: half a zip. The source fails, the backfill ends failed and starts its alert.
  const truncated = path.join(workDir, ADDRESS_CSV_ZIP);
  const zip = await readFile(sample.files.addressCsvZip);
  await writeFile(truncated, zip.subarray(0, Math.floor(zip.length / 2)));
  const bad = await client.workflow.execute(backfill, { taskQueue: queue, workflowId: 'backfill-replay-bad-file', args: [{ runId: 'replay-bad-file', sourceId: 'no-address', input: truncated }] });
  if (bad.outcome !== 'failed') throw new Error(`a truncated zip's backfill ended ${bad.outcome}`);
  await record('backfill-bad-file', 'backfill-replay-bad-file');
  await record('ingestSource-bad-file', ingestWorkflowId('no-address', bad.runId));
  await record('alertRun-failed-backfill', alertWorkflowId(bad.runId));

  // An input no worker has: asked of every worker on its own queue, then a DownloadError.
  await client.workflow.execute(backfill, {
    taskQueue: queue,
    workflowId: 'backfill-replay-missing-input',
    args: [{ runId: 'replay-missing-input', sourceId: 'no-address', input: path.join(workDir, 'no-such-file.csv') }],
  });
  await record('ingestSource-input-missing', ingestWorkflowId('no-address', 'replay-missing-input'));

  // Webhook deliveries, started as the dispatcher starts them, on a compressed retry schedule.
  const retry = { initialIntervalMs: 500, maxIntervalMs: 1000, backoffCoefficient: 2, horizonMs: 4000 };
  for (const [name, route] of [['deliverWebhook-retried-then-delivered', '/flaky'], ['deliverWebhook-failed-after-horizon', '/down']] as const) {
    const eventId = await outboxEvent(receiver.url(route));
    await client.workflow.execute(deliverWebhook, { taskQueue: queue, workflowId: deliveryWorkflowId(eventId), args: [{ eventId, retry }] });
    await record(name, deliveryWorkflowId(eventId));
  }
  await rm(HISTORIES_DIR, { recursive: true, force: true });
  await mkdir(HISTORIES_DIR, { recursive: true });
  // Stack traces in failures name the checkout's folder: write it as <project>, so the committed
  // histories name no path of the machine that recorded them (replay does not read those texts).
  for (const [file, { json }] of recorded) await writeFile(path.join(HISTORIES_DIR, file), json.replaceAll(PROJECT_ROOT, '<project>'));
  const workflowIds = Object.fromEntries([...recorded].map(([file, { workflowId }]) => [file, workflowId]).sort());
  await writeFile(path.join(HISTORIES_DIR, WORKFLOW_IDS_FILE), `${JSON.stringify(workflowIds, null, 2)}\n`);
  log(`${recorded.size} histories in ${path.relative(process.cwd(), HISTORIES_DIR)}`);
}

/** One pending change event of a subscription to `webhookUrl`, its secret sealed as the API seals it. */
async function outboxEvent(webhookUrl: string): Promise<string> {
  const db = getPool();
  const clientId = 'replay-recorder';
  const subscriptionId = randomUUID();
  const eventId = randomUUID();
  const sealed = sealSecret(deriveKey(loadMasterKey(loadConfig()), 'webhook-secret'), 'whsec_replay_recorder');
  await db.query(
    `INSERT INTO api_client (client_id, secret_hash, name, tier, scopes, daily_call_limit, burst_limit, sandbox)
     VALUES ($1, 'not-a-login', 'replay recorder', 'standard', '{subscriptions.write}', 1, 1, false) ON CONFLICT (client_id) DO NOTHING`,
    [clientId],
  );
  await db.query(
    `INSERT INTO subscription (subscription_id, client_id, target_kind, target_country, target_cadastre_id, events, webhook_url, secret_encrypted)
     VALUES ($1, $2, 'PROPERTY', 'NO', '0301-1-1-0-0', '{OWNER_CHANGED}', $3, $4)`,
    [subscriptionId, clientId, webhookUrl, sealed],
  );
  await db.query(
    `INSERT INTO event_outbox (event_id, subscription_id, event_type, target_kind, country, cadastre_id, changed_field)
     VALUES ($1, $2, 'OWNER_CHANGED', 'PROPERTY', 'NO', '0301-1-1-0-0', 'owners')`,
    [eventId, subscriptionId],
  );
  return eventId;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
