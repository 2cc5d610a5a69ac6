import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { MetricMeter } from '@temporalio/common';

/**
 * The worker's event-loop delay, watched. Every activity of a worker process beats from its one
 * JavaScript thread, and the server gives up on an attempt whose beats stop for its heartbeat
 * timeout (30 s for a stage): a loop held up by parsing, hashing or a garbage collection shows
 * first here. In a national refresh on 2 cores, stages timed out and nothing showed why.
 *
 * Each window's longest delay goes into a histogram (how many windows stalled over 1 s, 5 s, …)
 * and a gauge (the last window's). A window whose longest delay reaches `warnAfterMs` is logged
 * with its length, the window's garbage-collection pauses and what was running (`running`).
 */
export const EVENT_LOOP_DELAY = 'nordprop_event_loop_delay_seconds';
/** Seconds: a healthy loop stays under 10 ms; 30 s is a stage's heartbeat timeout. */
export const EVENT_LOOP_DELAY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface EventLoopWatchOptions {
  windowMs?: number;
  warnAfterMs?: number;
  warn?: (message: string) => void;
  /** What the process was running, named in the warning. */
  running?: () => string[];
}

/** Starts watching; the returned function stops it. The timers never keep the process alive. */
export function watchEventLoopDelay(meter: MetricMeter, options: EventLoopWatchOptions = {}): () => void {
  const { windowMs = 10_000, warnAfterMs = 5_000, warn = console.warn, running = () => [] } = options;
  const window = `${windowMs / 1000} s window`;
  const windows = meter.createHistogram(EVENT_LOOP_DELAY, 'float', 's', `Longest event-loop delay of each ${window} of the worker process`);
  const last = meter.createGauge('nordprop_event_loop_delay_last_window_seconds', 'float', 's', `Longest event-loop delay of the last ${window} of the worker process`);
  const delays = monitorEventLoopDelay({ resolution: 20 });
  delays.enable();
  let collectingMs = 0;
  const countCollections = (entries: PerformanceEntry[]) => entries.forEach((entry) => (collectingMs += entry.duration));
  const collections = new PerformanceObserver((list) => countCollections(list.getEntries()));
  collections.observe({ entryTypes: ['gc'] });
  let windowStarted = performance.now();
  const timer = setInterval(() => {
    // The pauses not yet delivered (those of a stall that just ended) belong to this window.
    countCollections(collections.takeRecords());
    const windowSeconds = Math.round((performance.now() - windowStarted) / 1000);
    windowStarted = performance.now();
    // Nanoseconds; an empty window (no sample yet) reads 0 rather than the histogram's sentinel.
    const longestMs = delays.count > 0 ? delays.max / 1e6 : 0;
    const gcMs = collectingMs;
    delays.reset();
    collectingMs = 0;
    windows.record(longestMs / 1000);
    last.set(longestMs / 1000);
    if (longestMs >= warnAfterMs) {
      const busy = running();
      warn(
        `nordprop: the worker's event loop stalled ${(longestMs / 1000).toFixed(1)} s (activities' heartbeats wait on it; a stage times out after 30 s without one); ` +
          `garbage collection ${(gcMs / 1000).toFixed(1)} s of the last ${windowSeconds} s; running: ${busy.length ? busy.join(', ') : 'nothing'}`,
      );
    }
  }, windowMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    delays.disable();
    collections.disconnect();
  };
}
