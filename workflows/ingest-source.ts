import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import type { IngestSourceInput, SourceRunSummary } from '../activities/types.js';
import { dispatchPendingEvents } from './deliver-dispatch.js';

const NON_RETRYABLE = ['InputFormatError', 'ValidationFailed', 'DownloadError'];

// Download and stage stream whole registers: long timeouts, heartbeats to notice a dead worker.
const { downloadArtifact, stageArtifact } = proxyActivities<typeof activities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: NON_RETRYABLE },
});
const { validateStaged, publishStaged } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 hours',
  retry: { maximumAttempts: 3, initialInterval: '5 seconds', nonRetryableErrorTypes: NON_RETRYABLE },
});
const { finishSourceRun, dropStaging, getSourceRunSummary } = proxyActivities<typeof activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10 },
});

function describe(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Ingests one source: download → stage → validate → publish. A failure anywhere leaves live
 * data untouched; it is recorded in the ledger and returned (not thrown) so a nightly run
 * carries on with the other sources.
 */
export async function ingestSource(input: IngestSourceInput): Promise<SourceRunSummary> {
  const { runId, sourceId } = input;
  try {
    const artifact = await downloadArtifact(input);
    if (artifact.unchanged) {
      await finishSourceRun({ runId, sourceId, outcome: 'unchanged' });
      return await getSourceRunSummary({ runId, sourceId });
    }
    const staged = await stageArtifact({ runId, sourceId, artifactPath: artifact.artifactPath });
    const snapshot = await validateStaged({ runId, sourceId, input: artifact.input, staged, force: input.force });
    await publishStaged({ runId, sourceId, snapshot });
  } catch (error) {
    if (isCancellation(error)) throw error;
    await finishSourceRun({ runId, sourceId, outcome: 'failed', error: describe(error) });
    await dropStaging({ runId, sourceId });
  }
  await dispatchPendingEvents();
  return await getSourceRunSummary({ runId, sourceId });
}
