import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, whether running from TypeScript sources or from dist/. */
export const PROJECT_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the nordprop project root');
    dir = parent;
  }
  return dir;
})();

// Machine-local settings (git-ignored `.env`, written by the demo script); the environment wins.
// NORDPROP_ENV_FILE names another file, or '' for none (the tests use that).
const LOCAL_ENV = process.env.NORDPROP_ENV_FILE ?? path.join(PROJECT_ROOT, '.env');
if (LOCAL_ENV && existsSync(LOCAL_ENV)) {
  const before = { ...process.env };
  process.loadEnvFile(LOCAL_ENV);
  Object.assign(process.env, before);
}

function env(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name}="${raw}" is not a number`);
  return value;
}

export interface Config {
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  taskQueue: string;
  temporalUiUrl: string;
  /** Where downloaded artifacts, sample registers and the dev server's files live. */
  dataDir: string;
  /** When set, each source reads `<inputDir>/<its file name>` instead of the national register URL. */
  inputDir: string | undefined;
  /** Validation: a run fails when rejected/read exceeds this. */
  maxRejectRate: number;
  /** Validation: a run fails when the snapshot shrinks by more than this fraction of live rows. */
  maxRowDrop: number;
  /** Rows per committed COPY chunk; a retried stage resumes after the last committed chunk. */
  stageChunkRows: number;
  /** The REST API: port it listens on (`PORT`) and the base URL it names in links and problem types. */
  api: { port: number; host: string; baseUrl: string; masterKey: string | undefined; anonymousBurst: number };
  /**
   * Webhooks (docs/webhooks.md): hosts, addresses and CIDR ranges a delivery may reach besides
   * global unicast addresses (NORDPROP_WEBHOOK_ALLOWED_HOSTS, comma-separated), and how many
   * subscriptions one client may have (NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS).
   */
  webhooks: { allowedHosts: string[]; maxSubscriptionsPerClient: number };
  /**
   * Where a run that ends partial or failed is announced (NORDPROP_ALERT_WEBHOOK_URL): a JSON POST
   * with a Slack-compatible `text` (activities/alerts.ts, docs/operations.md). Unset: no alerts.
   */
  alertWebhookUrl: string | undefined;
  /**
   * Where the worker serves Prometheus metrics (NORDPROP_METRICS_PORT: a port, on 127.0.0.1, or
   * `host:port`), as `host:port`; unset: no metrics server.
   */
  workerMetricsAddress: string | undefined;
}

function metricsAddress(): string | undefined {
  const raw = process.env.NORDPROP_METRICS_PORT?.trim();
  if (!raw) return undefined;
  const match = /^(?:(.+):)?(\d{1,5})$/.exec(raw);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) throw new Error(`NORDPROP_METRICS_PORT="${raw}" must be a port (1–65535) or host:port`);
  return `${match[1] ?? '127.0.0.1'}:${port}`;
}

export function loadConfig(): Config {
  const dataDir = path.resolve(PROJECT_ROOT, env('NORDPROP_DATA_DIR', '.data'));
  const inputDir = process.env.NORDPROP_INPUT_DIR;
  return {
    databaseUrl: env('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/nordprop'),
    temporalAddress: env('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
    temporalNamespace: env('TEMPORAL_NAMESPACE', 'default'),
    taskQueue: env('NORDPROP_TASK_QUEUE', 'nordprop'),
    temporalUiUrl: env('TEMPORAL_UI_URL', 'http://127.0.0.1:8233'),
    dataDir,
    inputDir: inputDir ? path.resolve(PROJECT_ROOT, inputDir) : undefined,
    maxRejectRate: numberEnv('NORDPROP_MAX_REJECT_RATE', 0.01),
    maxRowDrop: numberEnv('NORDPROP_MAX_ROW_DROP', 0.1),
    stageChunkRows: numberEnv('NORDPROP_STAGE_CHUNK_ROWS', 250_000),
    api: {
      port: numberEnv('PORT', 8080),
      host: env('NORDPROP_API_HOST', '127.0.0.1'),
      baseUrl: env('NORDPROP_API_BASE_URL', `http://127.0.0.1:${numberEnv('PORT', 8080)}`).replace(/\/+$/, ''),
      // Base64 of 32 bytes; encrypts webhook secrets and signs page tokens. Unset: a key file in dataDir.
      masterKey: process.env.NORDPROP_API_MASTER_KEY || undefined,
      // Requests a second per IP without a valid token (the token endpoint, the catalog, bad tokens).
      anonymousBurst: numberEnv('NORDPROP_API_ANONYMOUS_BURST', 50),
    },
    webhooks: {
      allowedHosts: env('NORDPROP_WEBHOOK_ALLOWED_HOSTS', '').split(',').map((entry) => entry.trim()).filter(Boolean),
      maxSubscriptionsPerClient: (() => {
        const max = numberEnv('NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS', 100);
        if (!Number.isInteger(max) || max < 1) throw new Error(`NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS="${process.env.NORDPROP_WEBHOOK_MAX_SUBSCRIPTIONS}" must be a whole number ≥ 1`);
        return max;
      })(),
    },
    alertWebhookUrl: (() => {
      const url = process.env.NORDPROP_ALERT_WEBHOOK_URL || undefined;
      if (url && !(/^https?:\/\//i.test(url) && URL.canParse(url))) throw new Error('NORDPROP_ALERT_WEBHOOK_URL must be an http(s) URL');
      return url;
    })(),
    workerMetricsAddress: metricsAddress(),
  };
}
