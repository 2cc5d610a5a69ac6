import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import type { IngestSourceInput, SourceRunSummary } from '../activities/types.js';
import { dispatchPendingEvents } from './deliver-dispatch.js';
import { describeError } from '../lib/describe-error.js';

/** Failures a retry of the same activity cannot mend: a bad file, a refused snapshot, lost staging. */
const NON_RETRYABLE = ['InputFormatError', 'ValidationFailed', 'DownloadError', 'StagingLost'];

// Download and stage stream whole registers: long timeouts, heartbeats to notice a dead worker
// (the stage beats on a timer too, so its timeout can be short; a download beats per chunk).
const { downloadArtifact } = proxyActivities<typeof activities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: NON_RETRYABLE },
});
const { stageArtifact } = proxyActivities<typeof activities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: NON_RETRYABLE },
});
// Validate and publish are long statements: they beat on a timer, so a worker killed in the
// middle is noticed in half a minute and another worker retries (the publish is idempotent).
const { validateStaged, publishStaged } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: NON_RETRYABLE },
});
const { finishSourceRun, dropStaging, getSourceRunSummary } = proxyActivities<typeof activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10 },
});

/** How often a source is staged again when its staging table was lost (a database restart). */
const MAX_STAGINGS = 3;

const isStagingLost = (error: unknown) =>
  error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'StagingLost';

/**
 * Ingests one source: download → stage → validate → publish. A failure anywhere leaves live
 * data untouched; it is recorded in the ledger and the workflow fails with it, so the Temporal
 * UI shows a failed source as Failed (the nightly refresh carries on with the other sources).
 */
export async function ingestSource(input: IngestSourceInput): Promise<SourceRunSummary> {
  const { runId, sourceId } = input;
  try {
    const artifact = await downloadArtifact(input);
    if (artifact.unchanged) {
      await finishSourceRun({ runId, sourceId, outcome: 'unchanged' });
      return await getSourceRunSummary({ runId, sourceId });
    }
    for (let staging = 1; ; staging++) {
      try {
        const staged = await stageArtifact({ runId, sourceId, artifactPath: artifact.artifactPath });
        const snapshot = await validateStaged({ runId, sourceId, input: artifact.input, staged, force: input.force });
        await publishStaged({ runId, sourceId, snapshot });
        break;
      } catch (error) {
        if (!isStagingLost(error) || staging >= MAX_STAGINGS) throw error;
        log.warn('staging lost, staging the source again', { sourceId, runId, staging, error: describeError(error) });
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
