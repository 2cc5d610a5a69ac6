import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, isGrpcServiceError, isRetryableError, NamespaceNotFoundError, ServiceError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { Config } from '../lib/config.js';
import { describeError } from '../lib/describe-error.js';
import { formatDuration } from './output.js';

/** Default of `--reconnect-timeout`: how long a waiting CLI keeps retrying an unreachable server. */
export const DEFAULT_RECONNECT_TIMEOUT_MS = 10 * 60_000;

const DEADLINE_EXCEEDED = 4;

/**
 * A client for a CLI that starts a run and may wait for it: as lib/temporal/connection.ts's, but
 * once the server is back after an outage it reconnects within seconds (gRPC's own reconnect
 * backoff grows to two minutes).
 */
export async function connectForRun(config: Config): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({
    address: config.temporalAddress,
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 3000 },
  });
  return { client: new Client({ connection, namespace: config.temporalNamespace }), connection };
}

/**
 * True when the error says only that the server did not answer (down, restarting, a network
 * fault), not anything about the workflow: waiting longer may still bring its real outcome.
 */
export function isServerUnreachable(error: unknown): boolean {
  // A dev server restarting answers for a moment before its namespaces are loaded.
  if (error instanceof NamespaceNotFoundError) return true;
  const cause = error instanceof ServiceError ? error.cause : error;
  if (!isGrpcServiceError(cause)) return false;
  return cause.code === DEADLINE_EXCEEDED || isRetryableError({ code: cause.code, details: cause.details, metadata: cause.metadata });
}

/**
 * The run's outcome cannot be known here: the server stayed unreachable for longer than the
 * reconnect timeout, or came back without the workflow (a dev server restarted in memory).
 */
export class OutcomeUnknownError extends Error {
  override name = 'OutcomeUnknownError';
}

export interface WaitOptions {
  connection: Connection;
  /** The server's address, for messages. */
  address: string;
  /** Give up after the server has been unreachable this long. */
  reconnectTimeoutMs: number;
  /** Writes one line for the user (stderr, or above the progress bars). */
  say(line: string): void;
}

/** First and longest pause between attempts to reach the server again. */
const RETRY_DELAY_MS = { initial: 1000, max: 5000 };

/**
 * The workflow's result, waited for through lost connections: when the server stops answering
 * (the SDK gives up after ≈20 s of its own retries), this says so and tries again with backoff
 * until the server answers, then waits on; only after `reconnectTimeoutMs` without an answer does
 * it give up with OutcomeUnknownError, as when the server answers without the workflow. Any other
 * error (the workflow failed, was terminated, …) is the workflow's and is thrown as it is.
 */
export async function waitForResult<T>(handle: WorkflowHandle, options: WaitOptions): Promise<T> {
  for (;;) {
    try {
      return (await handle.result()) as T;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        throw new OutcomeUnknownError(`Temporal server at ${options.address} no longer knows workflow ${handle.workflowId} (restarted without its database?); the run's outcome is unknown`);
      }
      if (!isServerUnreachable(error)) throw error;
      await waitUntilReachable(handle, options, error);
    }
  }
}

async function waitUntilReachable(handle: WorkflowHandle, options: WaitOptions, error: unknown): Promise<void> {
  const since = Date.now();
  const giveUpAt = since + options.reconnectTimeoutMs;
  options.say(
    `Temporal server at ${options.address} is unreachable (${describeError(error)}); the run goes on without it. ` +
      `Retrying for up to ${formatDuration(options.reconnectTimeoutMs)}.`,
  );
  let delay = RETRY_DELAY_MS.initial;
  let lastSaid = since;
  for (;;) {
    const left = giveUpAt - Date.now();
    if (left <= 0) {
      throw new OutcomeUnknownError(
        `Temporal server at ${options.address} unreachable for ${formatDuration(Date.now() - since)} (${describeError(error)}); ` +
          `gave up waiting (--reconnect-timeout); the run's outcome is unknown`,
      );
    }
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, RETRY_DELAY_MS.max);
    try {
      // A short deadline: the SDK's own retries would otherwise hold each attempt for ≈20 s.
      await options.connection.withDeadline(Date.now() + 5000, () => handle.describe());
      options.say(`Temporal server at ${options.address} answers again after ${formatDuration(Date.now() - since)}; still waiting for the run.`);
      return;
    } catch (attempt) {
      // Any other answer (such as "workflow not found") is the server's: result() gives it next.
      if (!isServerUnreachable(attempt)) return;
      error = attempt;
      if (Date.now() - lastSaid >= 30_000) {
        lastSaid = Date.now();
        options.say(`Temporal server at ${options.address} still unreachable after ${formatDuration(Date.now() - since)}; retrying until ${new Date(giveUpAt).toLocaleTimeString()}.`);
      }
    }
  }
}
