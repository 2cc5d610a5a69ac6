import { Context } from '@temporalio/activity';
import type { ProgressDetails } from './types.js';

/**
 * The progress heartbeats of a resumable activity (a stage, a download). `beat` sends at most
 * every `intervalMs` (building details per row is wasteful, and the SDK throttles too); `latest`
 * is the last details given, or the attempt's starting ones. The activity's timer beats repeat
 * them (withProgressHeartbeat): a beat without them would erase the resume position its retry reads.
 */
export interface ProgressBeats {
  beat(details: ProgressDetails, force?: boolean): void;
  latest(): ProgressDetails | undefined;
}

function progressHeartbeats(initial?: ProgressDetails, intervalMs = 1000): ProgressBeats {
  let last = 0;
  let latest = initial;
  return {
    beat(details, force = false) {
      latest = details;
      const now = Date.now();
      if (!force && now - last < intervalMs) return;
      last = now;
      Context.current().heartbeat(details);
    },
    latest: () => latest,
  };
}

/**
 * A resumable activity's `work`, beating on a timer with its latest progress from its first
 * statement to its last. Beating only as rows go by left stretches without a beat: a stage's
 * count and deletes of a national staging table before it resumes and its count at the end, a
 * download waiting for a server's answer. On a busy host such a stretch outlasted the heartbeat
 * timeout, and the server retried a live attempt.
 */
export function withProgressHeartbeat<T>(initial: ProgressDetails | undefined, work: (beat: ProgressBeats['beat']) => Promise<T>): Promise<T> {
  const beats = progressHeartbeats(initial);
  return withHeartbeat(() => work(beats.beat), beats.latest);
}

/**
 * Throws the activity's cancellation once it has one: cancelled by its workflow, timed out on the
 * server (a missed heartbeat: the server has already scheduled the retry), or the worker shutting
 * down. A stage calls it at each committed chunk, its hash pass at each batch: a stage does not
 * otherwise notice, and an attempt the server had given up on ran on to the end beside its own
 * retry, reading and COPYing the same file twice on a worker that was already too busy.
 */
export function throwIfCancelled(): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return; // outside an activity (a script or a test): nothing cancels it
  }
  context.cancellationSignal.throwIfAborted();
}

/**
 * Heartbeats every few seconds while `work` runs, whether or not it reports progress: one long
 * statement (a publish's merge, a COPY flush, a dataset's computation) must not look like a dead
 * worker, and a dead worker must be noticed within the activity's heartbeat timeout, not its
 * start-to-close timeout. `details` gives what each beat carries (a stage's resume position).
 */
export async function withHeartbeat<T>(work: () => Promise<T>, details: () => unknown = () => undefined, intervalMs = 5_000): Promise<T> {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return work(); // called outside an activity (a script or a test): nothing to heartbeat to
  }
  const timer = setInterval(() => context.heartbeat(details()), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The activity `activity`, heartbeating every few seconds while it runs (withHeartbeat). For the
 * short bookkeeping activities (the ledger, a staging table's drop): the workflows give them a
 * heartbeat timeout, so that a worker killed in one is noticed in half a minute and another
 * worker retries it, instead of the run standing still until the start-to-close timeout.
 */
export function beatingWhileRunning<A extends unknown[], R>(activity: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) => withHeartbeat(() => activity(...args));
}
