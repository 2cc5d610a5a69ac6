import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, log, proxyActivities, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import { TimeoutType } from '@temporalio/common';
import type * as activities from '../activities/index.js';
import { BOOKKEEPING } from './activity-options.js';
import type { Artifact, IngestSourceInput, SourceRunSummary } from '../activities/types.js';
import { dispatchPendingEvents } from './deliver-dispatch.js';
import { describeError } from '../lib/describe-error.js';

/** Failures a retry of the same activity cannot mend: a bad file, a refused snapshot, lost staging, an input this worker lacks. */
const NON_RETRYABLE = ['InputFormatError', 'ValidationFailed', 'DownloadError', 'StagingLost', 'InputNotOnWorkerError'];
const RETRY = { maximumAttempts: 5, initialInterval: '5 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: NON_RETRYABLE };

// Download and stage stream whole registers: long timeouts, heartbeats to notice a dead worker
// (the stage beats on a timer too, so its timeout can be short; a download beats per chunk).
const DOWNLOAD = { startToCloseTimeout: '4 hours', heartbeatTimeout: '2 minutes', retry: RETRY } as const;
const STAGE = { startToCloseTimeout: '4 hours', heartbeatTimeout: '30 seconds', retry: RETRY } as const;
const { downloadArtifact } = proxyActivities<typeof activities>(DOWNLOAD);

/**
 * The artifact lies in the data folder of the worker that downloaded it, so the activities that
 * read it run on that worker's own queue (lib/temporal/worker-task-queue.ts). A worker takes
 * every task of its own queue at once; one left waiting longer than this means that worker is
 * gone (a crash it does not come back from within the minute, a lost machine).
 */
const WORKER_QUEUE_PICKUP = '1 minute';
const onWorker = (taskQueue: string) => proxyActivities<typeof activities>({ ...STAGE, taskQueue, scheduleToStartTimeout: WORKER_QUEUE_PICKUP });
const downloadOnWorker = (taskQueue: string) => proxyActivities<typeof activities>({ ...DOWNLOAD, taskQueue, scheduleToStartTimeout: WORKER_QUEUE_PICKUP }).downloadArtifact;
/** How often the download→stage pair starts over from the download when the artifact's worker is gone. */
const MAX_HANDOFFS = 3;

// Validate and publish are long statements: they beat on a timer, so a worker killed in the
// middle is noticed in half a minute and another worker retries (the publish is idempotent).
// They read the database only, so any worker may run them.
const { validateStaged, publishStaged } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: RETRY,
});
const { finishSourceRun, dropStaging, getSourceRunSummary, listWorkerTaskQueues } = proxyActivities<typeof activities>(BOOKKEEPING);

/** How often a source is staged again when its staging table was lost (a database restart). */
const MAX_STAGINGS = 3;

const failureType = (error: unknown) => (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.type : undefined);
const isStagingLost = (error: unknown) => failureType(error) === 'StagingLost';
const isInputNotOnWorker = (error: unknown) => failureType(error) === 'InputNotOnWorkerError';
/** Nobody took the task from a worker's own queue: that worker is gone. */
const isWorkerGone = (error: unknown) =>
  error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && error.cause.timeoutType === TimeoutType.SCHEDULE_TO_START;

/**
 * The download, on any worker. A local input (the inbox, NORDPROP_INPUT_DIR, a path) exists
 * only on the workers that see it: when the one that took the download lacks it, every worker
 * polling the shared queue is asked in turn, on its own queue.
 */
async function download(input: IngestSourceInput): Promise<Artifact> {
  try {
    return await downloadArtifact(input);
  } catch (error) {
    if (!isInputNotOnWorker(error)) throw error;
    const queues = await listWorkerTaskQueues(workflowInfo().taskQueue);
    for (const queue of queues) {
      try {
        return await downloadOnWorker(queue)(input);
      } catch (elsewhere) {
        if (!isInputNotOnWorker(elsewhere) && !isWorkerGone(elsewhere)) throw elsewhere;
      }
    }
    const message = describeError(error) + (queues.length > 1 ? ` on any of the ${queues.length} workers` : '');
    throw ApplicationFailure.create({ type: 'DownloadError', message, nonRetryable: true });
  }
}

/** Stage (on the artifact's worker), validate, publish; staged again when staging was lost. */
async function stageAndPublish(input: IngestSourceInput, artifact: Artifact): Promise<void> {
  const { runId, sourceId } = input;
  // An artifact from a worker of before worker queues names none: the shared queue, as then.
  const { stageArtifact } = onWorker(artifact.workerTaskQueue ?? workflowInfo().taskQueue);
  for (let staging = 1; ; staging++) {
    try {
      // Staged again, the whole file: an increment can be overtaken by every publish of the
      // source that lands while it stages, as with several runs of one source at once.
      const staged = await stageArtifact({ runId, sourceId, artifactPath: artifact.artifactPath, input: artifact.input, force: input.force, ...(staging > 1 ? { wholeFile: true } : {}) });
      const snapshot = await validateStaged({ runId, sourceId, input: artifact.input, staged, force: input.force });
      await publishStaged({ runId, sourceId, snapshot });
      return;
    } catch (error) {
      if (!isStagingLost(error) || staging >= MAX_STAGINGS) throw error;
      log.warn('staging lost, staging the source again', { sourceId, runId, staging, error: describeError(error) });
    }
  }
}

/**
 * Ingests one source: download → stage → validate → publish. A failure anywhere leaves live
 * data untouched; it is recorded in the ledger and the workflow fails with it, so the Temporal
 * UI shows a failed source as Failed (the nightly refresh carries on with the other sources).
 *
 * Histories of runs started before worker queues (the stage on the shared queue, no hand-off)
 * do not replay on this code: let them finish on the old worker, or terminate them (the next
 * run closes their ledger entries).
 */
export async function ingestSource(input: IngestSourceInput): Promise<SourceRunSummary> {
  const { runId, sourceId } = input;
  try {
    for (let handoff = 0; ; handoff++) {
      const artifact = await download(input);
      if (artifact.unchanged) {
        await finishSourceRun({ runId, sourceId, outcome: 'unchanged' });
        return await getSourceRunSummary({ runId, sourceId });
      }
      try {
        await stageAndPublish(input, artifact);
        break;
      } catch (error) {
        // The worker holding the artifact is gone: download again, on whichever worker is alive.
        if (!isWorkerGone(error)) throw error;
        if (handoff >= MAX_HANDOFFS) {
          throw ApplicationFailure.create({
            type: 'WorkerGone',
            message: `the worker holding the downloaded file stopped taking tasks (no worker took its queue ${artifact.workerTaskQueue} within ${WORKER_QUEUE_PICKUP}), ${handoff + 1} times`,
            nonRetryable: true,
          });
        }
        log.warn('the worker holding the artifact is gone; downloading it again', { sourceId, runId, workerTaskQueue: artifact.workerTaskQueue, handoff });
      }
    }
  } catch (error) {
    const message = isCancellation(error) ? 'cancelled before it finished' : describeError(error);
    // Recorded even when cancelled: the ledger must not say `running` for a run nobody runs.
    await CancellationScope.nonCancellable(async () => {
      await finishSourceRun({ runId, sourceId, outcome: 'failed', error: message });
      await dropStaging({ runId, sourceId });
    });
    if (isCancellation(error)) throw error;
    throw ApplicationFailure.create({ message: `${sourceId}: ${message}`, type: 'SourceRunFailed', nonRetryable: true });
  }
  await dispatchPendingEvents();
  return await getSourceRunSummary({ runId, sourceId });
}
