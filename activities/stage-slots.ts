import { Context } from '@temporalio/activity';

/**
 * How many stages one worker process runs at once (two cores: a couple of sources stream at
 * once; the rest wait). A stage runs on its worker's own queue, which takes every task at once
 * (worker/pipeline-worker.ts), so that waiting there is a sign of a dead worker only; the waiting
 * for a busy worker happens here instead, inside the activity, heartbeating.
 */
export const STAGE_SLOTS = 4;

let running = 0;
const waiting: (() => void)[] = [];

/**
 * Runs `work` once one of the process's stage slots is free. While it waits it heartbeats
 * `details` (the stage's resume position from its last attempt, which must not be lost) every
 * few seconds, and gives up when the activity is cancelled.
 */
export async function inStageSlot<T>(work: () => Promise<T>, details: unknown, intervalMs = 5_000): Promise<T> {
  if (running >= STAGE_SLOTS) await waitForSlot(details, intervalMs);
  else running++;
  try {
    return await work();
  } finally {
    releaseSlot();
  }
}

async function waitForSlot(details: unknown, intervalMs: number): Promise<void> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    // Outside an activity (a script or a test): nothing to heartbeat to.
  }
  let granted!: () => void;
  const slot = new Promise<void>((resolve) => (granted = resolve));
  waiting.push(granted);
  const timer = context ? setInterval(() => context.heartbeat(details), intervalMs) : undefined;
  try {
    await (context ? Promise.race([slot, context.cancelled]) : slot);
  } catch (error) {
    const index = waiting.indexOf(granted);
    if (index >= 0) waiting.splice(index, 1);
    // Granted in the same tick it was cancelled: hand the slot on.
    else releaseSlot();
    throw error;
  } finally {
    clearInterval(timer);
  }
}

/** The slot passes straight to the next in line (`running` unchanged then), or is freed. */
function releaseSlot(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}
