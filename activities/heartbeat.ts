import { Context } from '@temporalio/activity';
import type { ProgressDetails } from './types.js';

/** Heartbeats at most every `intervalMs` (the SDK throttles too, but building details per row is wasteful). */
export function throttledHeartbeat(intervalMs = 1000): (details: ProgressDetails, force?: boolean) => void {
  let last = 0;
  return (details, force = false) => {
    const now = Date.now();
    if (!force && now - last < intervalMs) return;
    last = now;
    Context.current().heartbeat(details);
  };
}
