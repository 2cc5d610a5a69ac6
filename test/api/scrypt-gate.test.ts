import { describe, expect, it } from 'vitest';
import { FairGate, GateFull } from '../../api/auth/scrypt-gate.js';

/** A task that runs until released, recording when it started. */
function controlled(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { task: async () => { log.push(name); await done; return name; }, release: () => release() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FairGate (the token endpoint’s scrypt queue)', () => {
  it('runs at most `concurrency` tasks and hands each freed slot to the next key in turn', async () => {
    const gate = new FairGate(1, 10, 100);
    const started: string[] = [];
    const a = ['a1', 'a2', 'a3', 'a4'].map((name) => controlled(started, name));
    const b = controlled(started, 'b1');
    const runs = [...a.map((t) => gate.run('a', t.task))];
    await tick();
    runs.push(gate.run('b', b.task));
    await tick();
    expect(started).toEqual(['a1']);
    expect(gate.waiting).toBe(4);
    a[0].release();
    await tick();
    // a was first in turn (a2), then b: one task of the burst, not the three left.
    a[1].release();
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    b.release();
    a[2].release();
    a[3].release();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    expect(gate.waiting).toBe(0);
  });

  it('refuses at once past the waiting bound of one key, or of all keys', async () => {
    const gate = new FairGate(1, 2, 3);
    const started: string[] = [];
    const tasks = Array.from({ length: 6 }, (_, i) => controlled(started, `t${i}`));
    const running = gate.run('x', tasks[0].task);
    const queued = [gate.run('x', tasks[1].task), gate.run('x', tasks[2].task)];
    await expect(gate.run('x', tasks[3].task)).rejects.toBeInstanceOf(GateFull);
    queued.push(gate.run('y', tasks[4].task));
    await expect(gate.run('z', tasks[5].task)).rejects.toBeInstanceOf(GateFull);
    for (const task of tasks) task.release();
    expect(await Promise.all([running, ...queued])).toEqual(['t0', 't1', 't2', 't4']);
    expect(started).toEqual(['t0', 't1', 't4', 't2']);
  });

  it('frees the slot of a task that fails', async () => {
    const gate = new FairGate(1, 5, 5);
    await expect(gate.run('a', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await gate.run('a', async () => 'after')).toBe('after');
  });
});
