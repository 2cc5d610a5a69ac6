import os from 'node:os';

/** Thrown by FairGate.run when its queue is full: the caller answers at once instead of waiting. */
export class GateFull extends Error {
  constructor(readonly retryAfterS: number) {
    super('too many requests are waiting');
    this.name = 'GateFull';
  }
}

interface Waiting {
  start(): void;
}

/**
 * Bounded concurrency with a fair queue. At most `concurrency` tasks run at once; the others
 * wait in one queue per key, and a freed slot goes to the next key in turn (round robin), not to
 * the oldest waiter: a burst under one key (40 wrong secrets for one client) makes another key's
 * task (another client's token request) wait for the tasks already running, not for the burst.
 * Past `maxWaitingPerKey` waiting under one key, or `maxWaiting` in all, a task is refused at
 * once (GateFull).
 */
export class FairGate {
  private running = 0;
  private waitingCount = 0;
  /** Keys with waiting tasks, in turn order; each key's own tasks first in, first out. */
  private readonly queues = new Map<string, Waiting[]>();

  constructor(
    readonly concurrency: number,
    readonly maxWaitingPerKey: number,
    readonly maxWaiting: number,
  ) {}

  get waiting(): number {
    return this.waitingCount;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      const queue = this.queues.get(key);
      if ((queue?.length ?? 0) >= this.maxWaitingPerKey || this.waitingCount >= this.maxWaiting) throw new GateFull(1);
      await new Promise<void>((resolve) => {
        const waiting = { start: resolve };
        if (queue) queue.push(waiting);
        else this.queues.set(key, [waiting]);
        this.waitingCount++;
      });
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      this.next();
    }
  }

  /** Hands the finished task's slot to the first key in turn, which then goes to the back. */
  private next(): void {
    const first = this.queues.entries().next();
    if (first.done) {
      this.running--;
      return;
    }
    const [key, queue] = first.value;
    const waiting = queue.shift()!;
    this.queues.delete(key);
    if (queue.length) this.queues.set(key, queue);
    this.waitingCount--;
    waiting.start();
  }
}

/**
 * scrypt (N=2^15, r=8: 32 MB and tens of milliseconds of a core each) runs on libuv's thread
 * pool, four threads by default. Left alone, a burst of token requests ran that many at once,
 * took the cores from every other request, and queued the rest first come, first served. The
 * token endpoint runs its scrypt through this gate: one core's worth fewer than the machine has
 * (at least one), so the API's own thread keeps a core.
 */
export const SCRYPT_CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism() - 1));
export const scryptGate = new FairGate(SCRYPT_CONCURRENCY, 16, 128);
