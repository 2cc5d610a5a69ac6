import { Runtime, type ActivityInterceptorsFactory, type RuntimeOptions } from '@temporalio/worker';
import type { MetricCounter, MetricHistogram } from '@temporalio/common';
import type { Config } from '../config.js';
import { EVENT_LOOP_DELAY, EVENT_LOOP_DELAY_BUCKETS } from './event-loop-delay.js';

/**
 * The worker's metrics: the Temporal SDK's own (workflow and activity task latencies, slots,
 * polls, failures; `temporal_…`) and nordprop's per source (`nordprop_…`), both through the
 * SDK's Prometheus exporter, on one address.
 *
 * nordprop's figures are what the pipeline's activities already return to their workflows
 * (rows read, staged, rejected; rows inserted, updated, deleted) and how long each attempt of
 * a phase took, taken by an activity interceptor (pipelineMetrics): no activity records a
 * metric itself. They count completed activity attempts of this worker process; a publish
 * retried after its completion was lost (it returns the counts in the ledger) counts twice.
 * The process's event-loop delay goes there too (event-loop-delay.ts).
 */

/** Seconds: the sample's sources take under a second a phase, a national load up to an hour. */
const PHASE_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];
const PHASE_DURATION = 'nordprop_phase_duration_seconds';

/**
 * Installs the SDK's runtime with the Prometheus exporter on `config.workerMetricsAddress`
 * (NORDPROP_METRICS_PORT); it serves `/metrics` there. Must run before anything connects to
 * Temporal (the runtime is created once per process). Unset: nothing is installed (no
 * metrics server) and the interceptor's counts go to the SDK's no-op meter.
 */
export function installWorkerMetrics(config: Config, options: Pick<RuntimeOptions, 'logger'> = {}): string | undefined {
  const bindAddress = config.workerMetricsAddress;
  if (!bindAddress) return undefined;
  Runtime.install({
    ...options,
    telemetryOptions: {
      metrics: {
        prometheus: {
          bindAddress,
          // The SDK's metric names stay as Temporal's dashboards know them (durations in ms);
          // nordprop's histograms are in seconds: loads of seconds to an hour, and the event
          // loop's stalls (lib/metrics/event-loop-delay.ts).
          histogramBucketOverrides: { [PHASE_DURATION]: PHASE_BUCKETS, [EVENT_LOOP_DELAY]: EVENT_LOOP_DELAY_BUCKETS },
        },
      },
    },
  });
  return bindAddress;
}

interface Instruments {
  rowsRead: MetricCounter;
  rowsStaged: MetricCounter;
  rowsRejected: MetricCounter;
  rowsPublished: MetricCounter;
  phaseDuration: MetricHistogram;
  phaseFailures: MetricCounter;
}

let instruments: Instruments | undefined;

function meter(): Instruments {
  if (instruments) return instruments;
  const m = Runtime.instance().metricMeter;
  instruments = {
    rowsRead: m.createCounter('nordprop_rows_read_total', 'rows', 'Rows (and rejects) read from register files by completed stage attempts, per source'),
    rowsStaged: m.createCounter('nordprop_rows_staged_total', 'rows', 'Rows staged by completed stage attempts, per source'),
    rowsRejected: m.createCounter('nordprop_rows_rejected_total', 'rows', 'Rows rejected by completed stage attempts, per source'),
    rowsPublished: m.createCounter('nordprop_rows_published_total', 'rows', 'Live rows inserted, updated and deleted by completed publishes, per source and change'),
    phaseDuration: m.createHistogram(PHASE_DURATION, 'float', 's', 'Duration of completed download, stage, validate and publish attempts, per source'),
    phaseFailures: m.createCounter('nordprop_phase_failures_total', 'attempts', 'Download, stage, validate and publish attempts that failed, per source'),
  };
  return instruments;
}

/** The activities of a source's ingest and the phase each one is. */
const PHASES: Record<string, string> = { downloadArtifact: 'download', stageArtifact: 'stage', validateStaged: 'validate', publishStaged: 'publish' };

/** Records each attempt of a source's phases: its duration, its failure, and the counts it returns. */
export const pipelineMetrics: ActivityInterceptorsFactory = (ctx) => {
  const phase = PHASES[ctx.info.activityType];
  if (!phase) return {};
  return {
    inbound: {
      async execute(input, next) {
        const source = String((input.args[0] as { sourceId?: unknown } | undefined)?.sourceId ?? 'unknown');
        const tags = { source, phase };
        const started = performance.now();
        let result: unknown;
        try {
          result = await next(input);
        } catch (error) {
          meter().phaseFailures.add(1, tags);
          throw error;
        }
        const m = meter();
        m.phaseDuration.record((performance.now() - started) / 1000, tags);
        if (phase === 'stage') {
          const staged = result as { rowsRead: number; rowsStaged: number; rowsRejected: number };
          m.rowsRead.add(staged.rowsRead, { source });
          m.rowsStaged.add(staged.rowsStaged, { source });
          m.rowsRejected.add(staged.rowsRejected, { source });
        } else if (phase === 'publish') {
          const changes = result as { inserted: number; updated: number; deleted: number };
          for (const change of ['inserted', 'updated', 'deleted'] as const) m.rowsPublished.add(changes[change], { source, change });
        }
        return result;
      },
    },
  };
};
