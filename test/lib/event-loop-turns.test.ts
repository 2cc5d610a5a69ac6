import { describe, expect, it } from 'vitest';
import { eventLoopTurns } from '../../lib/event-loop-turns.js';

/** A loop over input that is always ready runs in promise continuations only, and starves timers. */
async function* alwaysReady(): AsyncGenerator<number> {
  for (let i = 0; ; i++) yield i;
}

/** Runs such a loop for `ms`, optionally taking turns; says how often a 10 ms timer fired meanwhile. */
async function timerFiringsDuring(ms: number, turns?: () => Promise<void> | undefined): Promise<number> {
  let fired = 0;
  const timer = setInterval(() => fired++, 10);
  const until = performance.now() + ms;
  try {
    for await (const _ of alwaysReady()) {
      if (performance.now() >= until) break;
      await turns?.();
    }
  } finally {
    clearInterval(timer);
  }
  return fired;
}

describe('eventLoopTurns', () => {
  it('lets timers run from inside a loop that would otherwise never return to the event loop', async () => {
    expect(await timerFiringsDuring(500)).toBe(0);
    // A turn every 50 ms: about 10 in 500 ms, each firing the overdue timer once.
    expect(await timerFiringsDuring(500, eventLoopTurns(50))).toBeGreaterThanOrEqual(5);
  });
});
