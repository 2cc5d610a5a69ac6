import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets the event loop turn at least every `everyMs` from inside a long async loop: call the
 * returned function once per batch and await it. A parse whose input is at hand (a GeoPackage,
 * read synchronously; text already buffered) runs from promise to promise without returning to
 * the loop, and timers wait meanwhile: the heartbeats, the workflow tasks' completions, the
 * event-loop watch. At a quarter of national size the worker's loop stalled up to 19 s that way
 * while se-building staged (docs/scaling.md). A turn costs one setImmediate, about 20 a second.
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
