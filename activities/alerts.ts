import os from 'node:os';
import { loadConfig, type Config } from '../lib/config.js';
import type { RunSummary } from './types.js';

/**
 * Alerts to an operator channel (docs/operations.md): when a run ends partial or failed, one JSON
 * POST to NORDPROP_ALERT_WEBHOOK_URL with a Slack-compatible `text` (one paragraph a person reads
 * in a chat) and the same facts as fields for a machine. The workflow starts it after closing the
 * run (workflows/alert.ts); Temporal retries a failed POST for hours, and the run never waits for
 * it. Unset, nothing is sent.
 */

/** A validation guard that refused a snapshot, told by the ledger's error text (the messages of activities/validate.ts and row-drop.ts). */
export type GuardName = 'reject-rate' | 'row-drop' | 'empty-snapshot';

const GUARDS: { guard: GuardName; pattern: RegExp; label: string }[] = [
  { guard: 'reject-rate', pattern: /^\d+ of \d+ rows rejected \([\d.]+%\), above the [\d.]+% ceiling/, label: 'reject rate' },
  { guard: 'row-drop', pattern: /^(?:snapshot has|the merge left) \d+ rows against \d+ live \([\d.]+% fewer, over the [\d.]+% limit\)/, label: 'row drop' },
  { guard: 'empty-snapshot', pattern: /^no rows could be staged from \d+ read/, label: 'empty snapshot' },
];

/** Which guard (a `ValidationFailed`) a source's ledger error says tripped, if any. */
export function guardOf(error: string | undefined): GuardName | undefined {
  return error ? GUARDS.find((g) => g.pattern.test(error))?.guard : undefined;
}

export interface RunAlert {
  /** Slack-compatible: one readable paragraph. */
  text: string;
  runId: string;
  /** nightly, refresh, backfill or derive. */
  kind: string;
  outcome: RunSummary['outcome'];
  durationMs: number;
  /** Sources (or, for a derive run, datasets) in the run, and how many failed. */
  sources: { total: number; failed: number };
  failedSources: { sourceId: string; error: string }[];
  guardTrips: { sourceId: string; guard: GuardName; error: string }[];
  /** The command that shows the run. */
  show: string;
  /** The run's workflows in the Temporal UI. */
  temporalUi: string;
}

const MAX_ERROR_IN_TEXT = 300;
const MAX_SOURCES_IN_TEXT = 10;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The alert for a run that did not succeed: a paragraph for people and the same facts as fields. */
export function buildRunAlert(summary: RunSummary, config: Pick<Config, 'temporalUiUrl' | 'temporalNamespace'>): RunAlert {
  const what = summary.kind === 'derive' ? 'datasets' : 'sources';
  const failedSources = summary.sources.filter((s) => s.outcome === 'failed').map((s) => ({ sourceId: s.sourceId, error: s.error ?? 'no error recorded' }));
  const guardTrips = failedSources.flatMap((s) => {
    const guard = guardOf(s.error);
    return guard ? [{ sourceId: s.sourceId, guard, error: s.error }] : [];
  });
  const show = `nordprop runs show ${summary.runId}`;
  const temporalUi = `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.temporalNamespace)}/workflows?query=${encodeURIComponent(`NordpropRunId="${summary.runId}"`)}`;
  const total = summary.sources.length;
  const failedCount = failedSources.length;
  // A source planned but never started has no ledger entry to list; the run counts it as failed.
  const counted = failedCount ? `${failedCount} of ${total} ${what} failed` : `some planned ${what} never started`;
  const listed = failedSources.slice(0, MAX_SOURCES_IN_TEXT).map((s) => {
    const guard = GUARDS.find((g) => g.guard === guardOf(s.error));
    return `${s.sourceId}${guard ? ` (validation guard: ${guard.label})` : ''}: ${clip(s.error, MAX_ERROR_IN_TEXT)}`;
  });
  if (failedSources.length > MAX_SOURCES_IN_TEXT) listed.push(`and ${failedSources.length - MAX_SOURCES_IN_TEXT} more`);
  const text =
    `nordprop ${summary.kind} run ${summary.runId} ended ${summary.outcome}: ${counted}` +
    (listed.length ? ` — ${listed.join('; ')}.` : '.') +
    ` Live data of the failed ${what} is unchanged. Look with: \`${show}\` (Temporal UI: ${temporalUi}).`;
  return {
    text,
    runId: summary.runId,
    kind: summary.kind,
    outcome: summary.outcome,
    durationMs: summary.durationMs,
    sources: { total, failed: failedCount },
    failedSources,
    guardTrips,
    show,
    temporalUi,
  };
}

/** The webhook's origin only: a Slack webhook's path is its secret, so it is never printed or logged. */
export function alertTarget(url: string): string {
  return `${new URL(url).origin}/…`;
}

/** POSTs the body as JSON; throws with the reason (status and the start of the answer, or the network error) unless 2xx. */
export async function postAlert(url: string, body: unknown, timeoutMs = 10_000): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'nordprop-alerts' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    throw new Error(`POST to ${alertTarget(url)} failed: ${cause?.message ?? (error as Error).message}`);
  }
  const answer = (await response.text().catch(() => '')).trim();
  if (!response.ok) throw new Error(`POST to ${alertTarget(url)} answered HTTP ${response.status}${answer ? `: ${clip(answer.replace(/\s+/g, ' '), 200)}` : ''}`);
}

/**
 * Activity: posts the alert of a run that ended partial or failed. Unset
 * NORDPROP_ALERT_WEBHOOK_URL: does nothing. A failed POST throws, and Temporal retries it.
 */
export async function sendRunAlert(summary: RunSummary): Promise<{ sent: boolean }> {
  const config = loadConfig();
  if (!config.alertWebhookUrl) return { sent: false };
  await postAlert(config.alertWebhookUrl, buildRunAlert(summary, config));
  return { sent: true };
}

/** `nordprop alerts test`: a message that says only that alerts reach the channel. */
export function testAlert(): { text: string; test: true; host: string; sentAt: string } {
  const host = os.hostname();
  return {
    text: `nordprop alert test from ${host}: alerts of runs that end partial or failed reach this channel. Nothing is wrong.`,
    test: true,
    host,
    sentAt: new Date().toISOString(),
  };
}
