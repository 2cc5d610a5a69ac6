/**
 * A worker thread of the GeoPackage hash pass (geopackage-hash-worker.ts starts it): hashes the
 * rows of the range it is given (geopackage-row-hashes.ts) and posts them a batch at a time.
 * It runs ahead of the main thread by at most the number of batches the shared counter allows,
 * so the hashes waiting to be written stay bounded whatever the file's size.
 */
import { workerData } from 'node:worker_threads';
import { InputFormatError } from './input-error.js';
import { hashRowRange } from './geopackage-row-hashes.js';
import type { HashThreadData, HashThreadMessage } from './geopackage-hash-worker.js';

const { request, port, posted, maxInFlight } = workerData as HashThreadData;
const counter = new Int32Array(posted);
/** Counted after it is posted, and the main thread woken if it waits for one. */
const post = (message: HashThreadMessage) => {
  port.postMessage(message);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
};

try {
  for (const batch of hashRowRange(request)) {
    // Wait while the main thread has `maxInFlight` batches not yet taken.
    for (let waiting = Atomics.load(counter, 0); waiting >= maxInFlight; waiting = Atomics.load(counter, 0)) Atomics.wait(counter, 0, waiting);
    post({ type: 'batch', batch });
  }
  post({ type: 'done' });
} catch (error) {
  post({ type: 'failed', message: (error as Error).message, inputFormat: error instanceof InputFormatError });
} finally {
  port.close();
}
