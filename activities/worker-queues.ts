import { Context } from '@temporalio/activity';
import proto from '@temporalio/proto';
import { workerQueueOfIdentity } from '../lib/temporal/worker-task-queue.js';

/**
 * The own queues of the workers polling `sharedQueue` now (Temporal lists the pollers it saw in
 * the last minutes, each worker's identity naming its queue): where to look for a local input
 * that the worker which took the download lacks. A worker that has since died may be listed;
 * its queue then times out waiting for a worker, and the next one is asked.
 */
export async function listWorkerTaskQueues(sharedQueue: string): Promise<string[]> {
  const { client, info } = Context.current();
  const response = await client.workflowService.describeTaskQueue({
    namespace: info.namespace,
    taskQueue: { name: sharedQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const queues = (response.pollers ?? []).map((poller) => workerQueueOfIdentity(poller.identity ?? '', sharedQueue));
  return [...new Set(queues.filter((queue): queue is string => queue !== undefined))].sort();
}
