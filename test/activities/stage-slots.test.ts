import { describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { inStageSlot, STAGE_SLOTS } from '../../activities/stage-slots.js';

/** A stage's work that runs until released. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('stage slots of a worker process', () => {
  it(`runs at most ${STAGE_SLOTS} stages at once; the others wait their turn and then run`, async () => {
    const gates = Array.from({ length: STAGE_SLOTS + 2 }, gate);
    let running = 0;
    let most = 0;
    const stages = gates.map((g, i) =>
      inStageSlot(async () => {
        most = Math.max(most, ++running);
        await g.opened;
        running--;
        return i;
      }, undefined),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running).toBe(STAGE_SLOTS);
    for (const g of gates) g.open();
    expect(await Promise.all(stages)).toEqual(gates.map((_, i) => i));
    expect(most).toBe(STAGE_SLOTS);
  });

  it('a stage waiting for a slot heartbeats its resume position; cancelled while waiting, it gives its place up', async () => {
    const busy = Array.from({ length: STAGE_SLOTS }, gate);
    const holding = busy.map((g) => inStageSlot(() => g.opened, undefined));
    const resume = { phase: 'stage', committedPosition: 7, committedRows: 5 };

    const waiter = new MockActivityEnvironment();
    const beats: unknown[] = [];
    waiter.on('heartbeat', (details: unknown) => beats.push(details));
    const waiting = waiter.run(() => inStageSlot(async () => 'ran', resume, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(beats.length).toBeGreaterThan(0);
    expect(beats.every((beat) => beat === resume)).toBe(true);
    waiter.cancel();
    await expect(waiting).rejects.toThrow();

    for (const g of busy) g.open();
    await Promise.all(holding);
    // Nothing leaked: all slots are free again.
    const again = Array.from({ length: STAGE_SLOTS }, gate);
    let started = 0;
    const after = again.map((g) => inStageSlot(async () => { started++; await g.opened; }, undefined));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toBe(STAGE_SLOTS);
    for (const g of again) g.open();
    await Promise.all(after);
  });
});
