import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ProgressDetails } from '../activities/types.js';

/**
 * What Temporal knows of a source's ingest workflow while it runs: the phase (by its running
 * activity) and the figures of that activity's last heartbeat (bytes of the file, rows so far).
 * Read by `refresh --wait`/`runs watch` (cli/progress.ts) and the ops console's running page.
 */

export type IngestDescription = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['describe']>>;

/** The last heartbeat's figures of the running activity, if it sent any (download and stage do). */
export function heartbeatDetails(description: IngestDescription): ProgressDetails | undefined {
  for (const activity of description.raw.pendingActivities ?? []) {
    const payload = activity.heartbeatDetails?.payloads?.[0];
    if (payload) return defaultPayloadConverter.fromPayload<ProgressDetails>(payload);
  }
  return undefined;
}

/** The ingest phases, by the activity that runs each (workflows/ingest-source.ts). */
const PHASE_OF_ACTIVITY: Record<string, string> = { downloadArtifact: 'download', stageArtifact: 'stage', validateStaged: 'validate', publishStaged: 'publish' };

/** The phase an ingest workflow is in, by its running activity (and its attempt, when retried); undefined between phases. */
export function runningPhase(description: IngestDescription): string | undefined {
  for (const activity of description.raw.pendingActivities ?? []) {
    const phase = PHASE_OF_ACTIVITY[activity.activityType?.name ?? ''];
    if (phase) return activity.attempt && activity.attempt > 1 ? `${phase} (attempt ${activity.attempt})` : phase;
  }
  return undefined;
}

export type IngestProgress =
  | { state: 'not started' }
  | { state: 'unknown'; reason: string }
  | { state: 'running'; phase?: string; details?: ProgressDetails }
  | { state: 'ended'; status: string };

/** One look at an ingest workflow, with a short deadline: a server that does not answer gives `unknown`. */
export async function readIngestProgress(client: Client, workflowId: string, deadlineMs = 2000): Promise<IngestProgress> {
  try {
    const description = await client.connection.withDeadline(Date.now() + deadlineMs, () => client.workflow.getHandle(workflowId).describe());
    if (description.status.name !== 'RUNNING') return { state: 'ended', status: description.status.name.toLowerCase() };
    return { state: 'running', phase: runningPhase(description), details: heartbeatDetails(description) };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { state: 'not started' };
    return { state: 'unknown', reason: (error as Error).message.split('\n')[0] };
  }
}
