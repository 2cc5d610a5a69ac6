import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { InputFormatError } from './input-error.js';
import type { RowHashBatch, RowHashRequest } from './geopackage-row-hashes.js';

/** What geopackage-hash-thread.ts is started with. */
export interface HashThreadData {
  request: RowHashRequest;
  /** Where the thread posts its messages (HashThreadMessage). */
  port: MessagePort;
  /** One Int32: the messages posted and not yet received by the main thread. */
  posted: SharedArrayBuffer;
  maxInFlight: number;
}

export type HashThreadMessage =
  | { type: 'batch'; batch: RowHashBatch }
  | { type: 'done' }
  | { type: 'failed'; message: string; inputFormat: boolean };

/** Batches a thread may post ahead of the main thread taking them: 8 × 5,000 rows, about 2 MB of hashes. */
const MAX_IN_FLIGHT = 8;

/** How long `next` waits for a message before it looks whether the thread died without one. */
const WAIT_MS = 500;

/** Atomics.waitAsync (ES2024; in Node.js since 16), which the project's TypeScript lib does not declare yet. */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/**
 * The thread that compiled code starts: the .js beside this module. Run as TypeScript (tsx,
 * vitest), the thread registers tsx first, as the process did, to load the .ts beside it.
 */
function threadOf(data: HashThreadData): Worker {
  const options = { workerData: data, transferList: [data.port] };
  if (import.meta.url.endsWith('.js')) return new Worker(new URL('./geopackage-hash-thread.js', import.meta.url), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const thread = new URL('./geopackage-hash-thread.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(thread)}); })`, { ...options, eval: true });
}

/**
 * The part of a hash pass a worker thread does: its batches as they arrive, taken by the main
 * thread between its own (`take`) or awaited (`next`).
 *
 * The messages are received synchronously (receiveMessageOnPort), not as events: the main
 * thread hashes its own part without ever returning to the event loop (its consumer's awaits
 * settle as microtasks), so a 'message' listener would not run until its part was done, and
 * the thread, held back by MAX_IN_FLIGHT, would wait all that time.
 */
export class HashThread {
  private readonly batches: RowHashBatch[] = [];
  private finished = false;
  private failure: Error | undefined;
  private readonly posted: Int32Array;

  private constructor(private readonly worker: Worker, private readonly port: MessagePort, posted: SharedArrayBuffer) {
    this.posted = new Int32Array(posted);
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      this.receive();
      if (!this.finished) this.fail(new Error(`the GeoPackage hash thread stopped (exit code ${code}) before it finished`));
    });
  }

  static start(request: RowHashRequest): HashThread {
    const posted = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    return new HashThread(threadOf({ request, port: port2, posted, maxInFlight: MAX_IN_FLIGHT }), port1, posted);
  }

  private fail(error: Error): void {
    this.failure ??= error;
  }

  /** Receives every message posted so far, and lets the thread post as many again. */
  private receive(): void {
    for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
      const message = received.message as HashThreadMessage;
      if (message.type === 'batch') this.batches.push(message.batch);
      else if (message.type === 'done') this.finished = true;
      else this.fail(message.inputFormat ? new InputFormatError(message.message) : new Error(message.message));
      Atomics.sub(this.posted, 0, 1);
      Atomics.notify(this.posted, 0);
    }
  }

  /** The batches arrived so far. */
  take(): RowHashBatch[] {
    this.receive();
    if (this.failure) throw this.failure;
    return this.batches.splice(0);
  }

  /** The next batches, waiting for the thread; none once it has posted its last. */
  async next(): Promise<RowHashBatch[]> {
    for (;;) {
      const taken = this.take();
      if (taken.length || this.finished) return taken;
      const wait = waitAsync(this.posted, 0, 0, WAIT_MS);
      if (wait.async) await wait.value;
    }
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
    this.port.close();
  }
}
