import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets the event loop turn at least every `everyMs` from inside a long async loop: call the
 * returned function once per batch and await it. A parse whose input is already buffered runs
 * from promise to promise without ever returning to the loop, and several stages interleave
 * there for seconds while timers wait: the heartbeats, the event-loop watch, the pool's idle
 * checks. In a national refresh on 2 cores the worker's loop stalled up to 21 s that way (stage
 * heartbeats time out at 30 s). A turn costs one setImmediate; at 50 ms, about 20 a second.
 */
export function eventLoopTurns(everyMs = 50): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < everyMs) return undefined;
    return nextTurn().then(() => {
      last = performance.now();
    });
  };
}
